/** The primary's relay between workers: a publisher is told once every sibling acted, or once a stuck one was killed. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RelayMessage } from '../../src/bus/relay-bus.js';
import { RelayHub } from '../../src/workers/relay-hub.js';

interface FakeWorker {
  id: number;
  sent: RelayMessage[];
  killed: string[];
  isConnected(): boolean;
  send(message: RelayMessage, done: (error: Error | null) => void): void;
  process: { kill(signal: string): void };
}

function worker(id: number): FakeWorker {
  const fake: FakeWorker = {
    id,
    sent: [],
    killed: [],
    isConnected: () => true,
    send: (message, done) => {
      fake.sent.push(message);
      done(null);
    },
    process: { kill: (signal) => void fake.killed.push(signal) },
  };
  return fake;
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('relay hub', () => {
  it('acknowledges a notice once every ready sibling has delivered it', () => {
    const [a, b, c] = [worker(1), worker(2), worker(3)];
    const hub = new RelayHub(() => [a, b, c]);
    for (const w of [a, b, c]) hub.receive(w, { strata: 'relay', kind: 'ready' });
    hub.receive(a, { strata: 'relay', kind: 'publish', id: 7, channel: 'schema', notice: {} });
    const delivery = b.sent.find((m) => m.kind === 'deliver') as Extract<RelayMessage, { kind: 'deliver' }>;
    assert.ok(delivery && c.sent.some((m) => m.kind === 'deliver'));
    hub.receive(b, { strata: 'relay', kind: 'delivered', ref: delivery.ref });
    assert.deepEqual(a.sent, [], 'not before the last sibling');
    hub.receive(c, { strata: 'relay', kind: 'delivered', ref: delivery.ref });
    assert.deepEqual(a.sent, [{ strata: 'relay', kind: 'acked', id: 7 }]);
  });

  it('kills a sibling that never answers, and the publisher is released by its exit', async () => {
    const [a, b] = [worker(1), worker(2)];
    const hub = new RelayHub(() => [a, b], 20);
    for (const w of [a, b]) hub.receive(w, { strata: 'relay', kind: 'ready' });
    hub.receive(a, { strata: 'relay', kind: 'publish', id: 1, channel: 'responses', notice: {} });
    for (let i = 0; i < 100 && b.killed.length === 0; i++) await settle(10);
    assert.deepEqual(b.killed, ['SIGKILL']);
    assert.deepEqual(a.killed, [], 'the publisher itself is not killed');
    assert.deepEqual(a.sent, []);
    hub.gone(b);
    assert.deepEqual(a.sent, [{ strata: 'relay', kind: 'acked', id: 1 }]);
  });
});
