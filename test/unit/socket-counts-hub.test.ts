/**
 * The primary's socket counts of WORKERS > 1: one count for every worker, a worker's references released one by one or
 * all at its exit, a replaced subscription not counted twice, a refused one answered with the quota's reason.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readConfig } from '../../src/config/config.js';
import { SocketCountsHub } from '../../src/workers/socket-counts-hub.js';
import type { SocketCountsAnswer, SocketCountsRequest } from '../../src/workers/socket-counts.js';

type Request = SocketCountsRequest extends infer T ? (T extends unknown ? Omit<T, 'strata'> : never) : never;

function worker(id: number) {
  const sent: SocketCountsAnswer[] = [];
  return {
    id,
    sent,
    isConnected: () => true,
    send: (message: SocketCountsAnswer, done: (error: Error | null) => void) => {
      sent.push(message);
      done(null);
    },
  };
}

const config = readConfig({
  DB_CLIENT: 'sqlite3',
  DB_FILENAME: ':memory:',
  SECRET: 'strata-test-secret-0123456789abcdef',
  WEBSOCKETS_CONN_LIMIT_PER_IP: '2',
  WEBSOCKETS_CONN_LIMIT_PER_USER: '1',
  WEBSOCKETS_SUBSCRIPTION_LIMIT_PER_IP: '2',
});

describe('socket counts hub', () => {
  it('counts the sockets of all workers together and frees a worker’s at its exit', () => {
    const hub = new SocketCountsHub(config);
    const [a, b] = [worker(1), worker(2)];
    const ask = (w: ReturnType<typeof worker>, request: Request) => {
      assert.ok(hub.receive(w, { strata: 'socket-counts', ...request }));
      return w.sent.at(-1);
    };
    assert.equal(ask(a, { op: 'reserve', ref: 1, name: 'rest', ip: '1.1.1.1' })?.refusal, null, 'checked and counted');
    ask(b, { op: 'open', ref: 1, name: 'rest', ip: '1.1.1.1' });
    assert.equal(ask(b, { op: 'reserve', ref: 2, name: 'rest', ip: '1.1.1.1' })?.refusal?.status, 429);
    assert.equal(ask(b, { op: 'reserve', ref: 3, name: 'graphql', ip: '1.1.1.1' })?.refusal, null, 'counted apart');
    assert.equal(ask(a, { op: 'claim-user', ref: 3, name: 'rest', user: 'u' })?.ok, true);
    assert.equal(ask(b, { op: 'claim-user', ref: 4, name: 'rest', user: 'u' })?.ok, false);
    hub.gone(a);
    assert.equal(ask(b, { op: 'reserve', ref: 5, name: 'rest', ip: '1.1.1.1' })?.refusal, null, 'a’s socket freed');
    assert.equal(ask(b, { op: 'claim-user', ref: 6, name: 'rest', user: 'u' })?.ok, true, 'a’s user freed');
    ask(b, { op: 'release', ref: 1 });
    ask(b, { op: 'release', ref: 6 });
    assert.equal(ask(b, { op: 'claim-user', ref: 7, name: 'rest', user: 'u' })?.ok, true);
    assert.equal(hub.receive(b, { strata: 'relay', kind: 'ready' }), false, 'not its message');
  });

  it('counts subscriptions across workers, a replaced one once', () => {
    const hub = new SocketCountsHub(config);
    const [a, b] = [worker(1), worker(2)];
    const take = (w: ReturnType<typeof worker>, ref: number, replacing: number | null = null) => {
      hub.receive(w, { strata: 'socket-counts', op: 'take', ref, user: null, ip: '2.2.2.2', query: 'q', replacing });
      return w.sent.at(-1)!;
    };
    assert.equal(take(a, 1).ok, true);
    assert.equal(take(b, 1).ok, true);
    const refused = take(b, 2);
    assert.equal(refused.ok, false);
    assert.match(refused.message ?? '', /At most 2 subscriptions/);
    assert.equal(take(b, 3, 1).ok, true, 'replacing b’s first');
    hub.receive(b, { strata: 'socket-counts', op: 'release', ref: 1 });
    hub.gone(a);
    assert.equal(take(b, 4).ok, true, 'a’s subscription freed at its exit');
  });
});
