/** Column defaults as the catalogs write them → JS values. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { normalizeAction, numericDefault, parseDefaultValue } from '../../src/db/introspection-utils.js';

describe('parseDefaultValue', () => {
  const cases: [unknown, unknown][] = [
    [null, null],
    ['NULL', null],
    ['null', null],
    ["'draft'::character varying", 'draft'],
    ["'it''s'::text", "it's"],
    ["'{}'::text[]", '{}'],
    ["'2020-01-01 00:00:00'::timestamp without time zone", '2020-01-01 00:00:00'],
    ["'draft'", 'draft'],
    ["''", ''],
    ['0', 0],
    ['(0)::numeric', 0],
    ['-1.5', -1.5],
    ['((42))', 42],
    ['9007199254740993', '9007199254740993'],
    ['true', true],
    ['FALSE', false],
    ['now()', 'CURRENT_TIMESTAMP'],
    ['CURRENT_TIMESTAMP', 'CURRENT_TIMESTAMP'],
    ['current_timestamp()', 'CURRENT_TIMESTAMP'],
    ['CURRENT_TIMESTAMP(3)', 'CURRENT_TIMESTAMP'],
    ['(a) + (b)', '(a) + (b)'],
    ['gen_random_uuid()', 'gen_random_uuid()'],
    // One spelling per function default, whichever database wrote it (snapshots compare across databases).
    ['uuid()', 'gen_random_uuid()'],
    ['uuid_generate_v4()', 'gen_random_uuid()'],
    ['curdate()', 'CURRENT_DATE'],
    ['CURRENT_DATE', 'CURRENT_DATE'],
    ["(datetime('now'))", 'CURRENT_TIMESTAMP'],
    ['LOCALTIMESTAMP(0)', 'CURRENT_TIMESTAMP'],
    ["(now() AT TIME ZONE 'utc'::text)", "now() AT TIME ZONE 'utc'::text"],
    [7, 7],
  ];
  for (const [raw, expected] of cases) {
    it(`${JSON.stringify(raw)} → ${JSON.stringify(expected)}`, () =>
      assert.deepEqual(parseDefaultValue(raw), expected));
  }
});

describe('numericDefault', () => {
  it('turns numeric text into numbers and leaves the rest', () => {
    assert.deepEqual(['-1.5', '10', 'abc', 3, '1e3'].map(numericDefault), [-1.5, 10, 'abc', 3, 1000]);
  });
});

describe('normalizeAction', () => {
  it('keeps the five referential actions, upper-cased', () => {
    assert.deepEqual(
      ['cascade', 'SET NULL', 'no action', 'Restrict', 'SET DEFAULT', null, 'bogus'].map(normalizeAction),
      ['CASCADE', 'SET NULL', 'NO ACTION', 'RESTRICT', 'SET DEFAULT', null, null],
    );
  });
});
