/** TransformQueue: at most N transforms at once, one run per variant however many ask, a bounded wait. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TransformQueue } from '../../src/engine/files/transform-queue.js';

const gate = () => {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
};

describe('transform queue', () => {
  it('runs at most maxConcurrent at once and the rest in turn', async () => {
    const queue = new TransformQueue(2);
    let running = 0;
    let most = 0;
    const gates = [gate(), gate(), gate(), gate()];
    const runs = gates.map((g, i) =>
      queue.once(`k${i}`, async () => {
        running++;
        most = Math.max(most, running);
        await g.opened;
        running--;
      }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(running, 2);
    for (const g of gates) g.open();
    await Promise.all(runs);
    assert.equal(most, 2);
  });

  it('runs a variant once for every caller that asks while it is made', async () => {
    const queue = new TransformQueue(1);
    let runs = 0;
    const g = gate();
    const work = async () => {
      runs++;
      await g.opened;
    };
    const first = queue.once('same', work);
    const second = queue.once('same', work);
    g.open();
    await Promise.all([first, second]);
    assert.equal(runs, 1);
  });

  it('refuses at once beyond its waiting room (503)', async () => {
    const queue = new TransformQueue(1, 1);
    const g = gate();
    const busy = queue.once('a', () => g.opened);
    const waiting = queue.once('b', async () => {});
    await assert.rejects(
      queue.once('c', async () => {}),
      (error: { code?: string }) => {
        return error.code === 'SERVICE_UNAVAILABLE';
      },
    );
    g.open();
    await Promise.all([busy, waiting]);
  });
});
