/**
 * A subscription group's memory of the keys it has shown: least recently shown forgotten first past its bound (and
 * then deletes pass whole), and no memory taken up front — each subscription with a query of its own is a group, and
 * the attack run measured ~255 kB per subscription when every group allocated its bound (10,000 keys) at creation.
 */
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, it } from 'node:test';
import { publicAccountability } from '../../src/permissions/accountability.js';
import { SubscriptionGroup } from '../../src/realtime/hub/subscription-group.js';

const group = (shownMax: number) =>
  new SubscriptionGroup('key', 'authors', { fields: ['id'] }, [], publicAccountability(), null, shownMax);

describe('subscription group', () => {
  it('forgets the least recently shown key past its bound, and says so', () => {
    const g = group(3);
    for (const key of ['1', '2', '3']) g.show(key);
    g.show('1');
    assert.equal(g.overflowed, false);
    g.show('4');
    assert.deepEqual(
      ['1', '2', '3', '4'].map((key) => g.showing(key)),
      [true, false, true, true],
    );
    assert.equal(g.overflowed, true);
    assert.equal(g.shownCount(), 3);
    assert.equal(g.forget('3'), true);
    assert.equal(g.forget('3'), false);
  });

  it('takes no memory for its bound up front: 2,000 groups of 10,000 keys each hold a few MB at most', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const heap = () => {
      for (let i = 0; i < 3; i++) gc();
      return process.memoryUsage().heapUsed;
    };
    const before = heap();
    const groups = Array.from({ length: 2000 }, () => group(10_000));
    for (const [i, g] of groups.entries()) g.show(String(i));
    const perGroup = (heap() - before) / groups.length;
    // Preallocating 10,000 keys costs ~220 kB per group; a Map of one key and the group's own fields about 1 kB.
    assert.ok(perGroup < 10_000, `${Math.round(perGroup)} bytes per group`);
    assert.equal(groups.length, 2000);
  });
});
