/** Keys of one column and composite keys: the string form, key objects, escapes, partial and wrong-typed keys. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { joinKey, keyOfValues, keyParts, parseKey } from '../../src/plan/row-key.js';
import type { CollectionOverview, FieldOverview } from '../../src/schema/types.js';

function field(name: string, type: FieldOverview['type']): FieldOverview {
  return {
    field: name,
    type,
    special: [],
    schema: null,
    meta: null,
    nullable: false,
    primaryKey: true,
    concealed: false,
    searchable: false,
  };
}

function collection(keys: [string, FieldOverview['type']][]): CollectionOverview {
  const fields = Object.fromEntries(keys.map(([name, type]) => [name, field(name, type)]));
  return {
    collection: 'c',
    primary: keys.length === 1 ? keys[0]![0] : null,
    keyFields: keys.map(([name]) => name),
    singleton: false,
    sortField: null,
    fields,
    fieldOrder: Object.keys(fields),
    meta: null,
    schema: { name: 'c', comment: null },
    system: false,
    view: false,
    links: {},
  };
}

describe('row keys', () => {
  const pair = collection([
    ['post_id', 'integer'],
    ['code', 'string'],
  ]);
  const single = collection([['id', 'integer']]);

  it('parses the string form and key objects of a composite key to one canonical key', () => {
    assert.equal(parseKey(pair, '07,a'), '7,a');
    assert.equal(parseKey(pair, { post_id: 7, code: 'a' }), '7,a');
    assert.deepEqual(keyParts(pair, '7,a'), [7, 'a']);
  });

  it('escapes commas and percent signs inside values', () => {
    const key = joinKey([7, 'a,b%c']);
    assert.equal(key, '7,a%2Cb%25c');
    assert.deepEqual(keyParts(pair, key), [7, 'a,b%c']);
    assert.equal(parseKey(pair, '7,a%2cb%25c'), key);
  });

  it('refuses part of a key, too many parts and values of the wrong type', () => {
    for (const given of ['7', '7,a,b', 'x,a', { post_id: 7 }, 7, null, ['7', 'a']])
      assert.equal(parseKey(pair, given), null, JSON.stringify(given));
  });

  it('keeps a one-column key its value', () => {
    assert.equal(parseKey(single, '12'), 12);
    assert.equal(parseKey(single, '1,2'), null);
    assert.equal(keyOfValues(single, { id: 3, x: 1 }), 3);
  });

  it('tells no key, a partial key and a whole key apart in values', () => {
    assert.equal(keyOfValues(pair, { other: 1 }), undefined);
    assert.equal(keyOfValues(pair, { post_id: 1 }), null);
    assert.equal(keyOfValues(pair, { post_id: 1, code: 'x' }), '1,x');
  });
});
