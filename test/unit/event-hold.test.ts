/**
 * The hold on change events a graphql-ws subscribe message takes: events wait while a hold older than them is open,
 * go on in arrival order, never wait on a hold taken after them, and a hold nobody releases lets go after its bound.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChangeEvent } from '../../src/engine/write/change-events.js';
import { EventHold } from '../../src/realtime/hub/event-hold.js';

const event = (key: number): ChangeEvent => ({ collection: 'authors', action: 'create', keys: [key] });

describe('event hold', () => {
  it('passes events through when no hold is open', () => {
    const hold = new EventHold(() => assert.fail('nothing is held'));
    assert.equal(hold.offer(event(1)), false);
  });

  it('keeps events while a hold is open and lets them go in order at its release', () => {
    const delivered: number[] = [];
    const hold = new EventHold((e) => delivered.push(Number(e.keys[0])));
    const release = hold.take();
    assert.equal(hold.offer(event(1)), true);
    assert.equal(hold.offer(event(2)), true);
    assert.deepStrictEqual(delivered, []);
    release();
    release();
    assert.deepStrictEqual(delivered, [1, 2]);
    assert.equal(hold.offer(event(3)), false);
  });

  it('an event waits only for the holds open at its arrival, and keeps its place behind earlier ones', () => {
    const delivered: number[] = [];
    const hold = new EventHold((e) => delivered.push(Number(e.keys[0])));
    const first = hold.take();
    hold.offer(event(1));
    const second = hold.take();
    hold.offer(event(2));
    first();
    // Event 1 predates the second hold: it goes; event 2 waits for the second.
    assert.deepStrictEqual(delivered, [1]);
    const third = hold.take();
    second();
    assert.deepStrictEqual(delivered, [1, 2]);
    // Arriving while the third is open, behind nothing: it waits for that one only.
    hold.offer(event(3));
    third();
    assert.deepStrictEqual(delivered, [1, 2, 3]);
  });

  it('a hold never released lets its events go after its bound', async () => {
    const delivered: number[] = [];
    const hold = new EventHold((e) => delivered.push(Number(e.keys[0])), 20);
    hold.take();
    hold.offer(event(1));
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.deepStrictEqual(delivered, [1]);
  });
});
