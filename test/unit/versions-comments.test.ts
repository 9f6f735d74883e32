/**
 * The pure parts of content versions and comments: the main item's hash (the same values give the same hash in any
 * key order; any change of value changes it) and `@<uuid>` mentions (Directus's pattern, each user once, lower case).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mentionedUsers } from '../../src/engine/versions/mentions.js';
import { itemHash } from '../../src/engine/versions/version-hash.js';

describe('content version hash', () => {
  it('does not depend on key order, and changes with any value', () => {
    const item = { id: 1, title: 'Home', tags: ['a', 'b'], meta: { x: 1, y: null } };
    const reordered = { meta: { y: null, x: 1 }, tags: ['a', 'b'], title: 'Home', id: 1 };
    assert.equal(itemHash(item), itemHash(reordered));
    assert.match(itemHash(item), /^[0-9a-f]{40}$/);
    assert.notEqual(itemHash(item), itemHash({ ...item, title: 'Home!' }));
    assert.notEqual(itemHash(item), itemHash({ ...item, tags: ['b', 'a'] }));
    assert.notEqual(itemHash(item), itemHash({ ...item, meta: { x: 1 } }));
    assert.notEqual(itemHash({ a: '1' }), itemHash({ a: 1 }));
  });
});

describe('comment mentions', () => {
  const alice = '6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b';
  const bob = 'a0b1c2d3-e4f5-4a6b-b7c8-d9e0f1a2b3c4';

  it('finds @<uuid> mentions, each user once, in order, lower-cased', () => {
    assert.deepEqual(mentionedUsers(`Hi @${alice}, @${bob.toUpperCase()} and @${alice} again`), [alice, bob]);
    assert.deepEqual(mentionedUsers('no mentions here, mail me@example.com'), []);
  });

  it('ignores what is not a version-4 uuid after @', () => {
    assert.deepEqual(mentionedUsers('@6f1c2b3a-4d5e-1f60-8a7b-9c0d1e2f3a4b'), []);
    assert.deepEqual(mentionedUsers('@6f1c2b3a4d5e4f608a7b9c0d1e2f3a4b'), []);
    assert.deepEqual(mentionedUsers(`email@${alice}`), [alice]);
  });
});
