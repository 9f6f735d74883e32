/**
 * The diff walker of /schema/apply (src/schema-admin/sync/changes.ts): applying what deep-diff found between two JSON
 * objects gives what deep-diff's own `applyChange` gave (property-based, fast-check), while
 * paths that would reach a prototype or a built-in are refused or kept on the object itself.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import deepDiff from 'deep-diff';
import fc from 'fast-check';
import { applyChange, changeProblem } from '../../src/schema-admin/sync/changes.js';
import type { Change } from '../../src/schema-admin/sync/changes.js';
import { assertPristine } from '../helpers/prototypes.js';

/** JSON objects whose keys are ordinary names (neither reserved nor Object.prototype's, where the two differ). */
const object = fc.dictionary(
  fc.string({ maxLength: 6 }).filter((k) => !(k in Object.prototype) && k !== 'prototype'),
  fc.jsonValue({ maxDepth: 4 }),
  { maxKeys: 6 },
);

describe('diff changes', () => {
  it('applies deep-diff’s changes from a to b as deep-diff did (and every change passes the check)', () => {
    fc.assert(
      fc.property(object, object, (a, b) => {
        const changes = (deepDiff.diff(a, b) ?? []) as Change[];
        const ours = JSON.parse(JSON.stringify(a)) as Record<string, unknown>;
        const theirs = JSON.parse(JSON.stringify(a)) as Record<string, unknown>;
        for (const [i, change] of changes.entries()) {
          assert.equal(changeProblem(JSON.parse(JSON.stringify(change)), `diff[${i}]`), null);
          applyChange(ours, change);
          deepDiff.applyChange(theirs, true, change as deepDiff.Diff<unknown, unknown>);
        }
        // As JSON text: fast-check makes some objects without a prototype.
        assert.equal(JSON.stringify(ours), JSON.stringify(theirs));
      }),
      { seed: 20261126, numRuns: 500 },
    );
  });

  it('refuses the reserved names as path segments, in lhs/rhs keys, and paths that are not names or indexes', () => {
    const problems = [
      { kind: 'N', path: ['__proto__', 'x'], rhs: 1 },
      { kind: 'E', path: ['meta', 'constructor', 'prototype', 'x'], rhs: 1 },
      { kind: 'D', path: ['prototype'] },
      { kind: 'N', path: [['__proto__'], 'x'], rhs: 1 },
      { kind: 'N', path: [{}, 'x'], rhs: 1 },
      { kind: 'N', path: [-1], rhs: 1 },
      { kind: 'N', path: ['meta'], rhs: JSON.parse('{"a":{"__proto__":{"x":1}}}') },
      { kind: 'A', path: ['list'], index: 0, item: { kind: 'N', path: ['__proto__'], rhs: 1 } },
      { kind: 'A', path: ['list'], index: 'x', item: { kind: 'N', rhs: 1 } },
      { kind: 'Z', path: ['a'] },
      null,
    ];
    for (const change of problems) assert.notEqual(changeProblem(change, 'c'), null, JSON.stringify(change));
  });

  it('walks own properties only: a path through an inherited built-in writes onto the object itself', () => {
    const target: Record<string, unknown> = { schema: { name: 'x' } };
    applyChange(target, { kind: 'N', path: ['schema', 'toString', 'polluted'], rhs: 'yes' } as Change);
    applyChange(target, { kind: 'N', path: ['hasOwnProperty', 'polluted'], rhs: 'yes' } as Change);
    assertPristine('applyChange');
    assert.deepEqual(target, {
      schema: { name: 'x', toString: { polluted: 'yes' } },
      hasOwnProperty: { polluted: 'yes' },
    });
  });

  it('a path through a value, or a change without a path among others, is INVALID_PAYLOAD', () => {
    for (const change of [
      { kind: 'N', path: ['name', 'x'], rhs: 1 },
      { kind: 'A', path: ['name'], index: 0, item: { kind: 'N', rhs: 1 } },
      { kind: 'E', rhs: 1 },
    ]) {
      assert.throws(
        () => applyChange({ name: 'text' }, change as Change),
        (error: { code?: string }) => error.code === 'INVALID_PAYLOAD',
        JSON.stringify(change),
      );
    }
  });
});
