import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluate } from '../../src/plan/validation.js';

/** The failing [field, type] pairs of a rule against a payload. */
const fails = (rule: Record<string, unknown>, payload: Record<string, unknown>) =>
  evaluate(rule, payload).map((f) => [f.field, f.type]);

describe('validation rules', () => {
  it('compares with _eq, _neq, _in, _nin, _lt … _gte and _between (numbers, numeric strings and dates)', () => {
    assert.deepEqual(fails({ a: { _eq: 1 } }, { a: '1' }), []);
    assert.deepEqual(fails({ a: { _eq: 1 } }, { a: 2 }), [['a', 'eq']]);
    assert.deepEqual(fails({ a: { _neq: 'x' } }, { a: 'x' }), [['a', 'neq']]);
    assert.deepEqual(fails({ a: { _in: ['x', 'y'] } }, { a: 'z' }), [['a', 'in']]);
    assert.deepEqual(fails({ a: { _in: 'x,y' } }, { a: 'y' }), []);
    assert.deepEqual(fails({ a: { _nin: [1, 2] } }, { a: 2 }), [['a', 'nin']]);
    assert.deepEqual(fails({ a: { _gt: 5, _lte: 10 } }, { a: 11 }), [['a', 'lte']]);
    assert.deepEqual(fails({ a: { _gte: '2024-01-01' } }, { a: '2023-12-31' }), [['a', 'gte']]);
    assert.deepEqual(fails({ a: { _lt: 3 } }, { a: 'abc' }), [['a', 'lt']]);
    assert.deepEqual(fails({ a: { _between: [1, 5] } }, { a: 5 }), []);
    assert.deepEqual(fails({ a: { _nbetween: [1, 5] } }, { a: 3 }), [['a', 'nbetween']]);
  });

  it('matches text with _contains, _starts_with, _ends_with (case-insensitive and negated forms) and _regex', () => {
    assert.deepEqual(fails({ a: { _contains: 'b' } }, { a: 'abc' }), []);
    assert.deepEqual(fails({ a: { _icontains: 'B' } }, { a: 'abc' }), []);
    assert.deepEqual(fails({ a: { _ncontains: 'b' } }, { a: 'abc' }), [['a', 'ncontains']]);
    assert.deepEqual(fails({ a: { _starts_with: 'b' } }, { a: 'abc' }), [['a', 'starts_with']]);
    assert.deepEqual(fails({ a: { _istarts_with: 'A' } }, { a: 'abc' }), []);
    assert.deepEqual(fails({ a: { _niends_with: 'C' } }, { a: 'abc' }), [['a', 'niends_with']]);
    assert.deepEqual(fails({ a: { _regex: '^[a-c]+$' } }, { a: 'abc' }), []);
    assert.deepEqual(fails({ a: { _regex: '/^ABC$/i' } }, { a: 'abc' }), []);
    assert.deepEqual(fails({ a: { _regex: '^\\d+$' } }, { a: 'abc' }), [['a', 'regex']]);
  });

  it('checks null, empty and submitted', () => {
    assert.deepEqual(fails({ a: { _null: true } }, { a: 1 }), [['a', 'null']]);
    assert.deepEqual(fails({ a: { _nnull: true } }, { a: null }), [['a', 'nnull']]);
    assert.deepEqual(fails({ a: { _empty: true } }, { a: '' }), []);
    assert.deepEqual(fails({ a: { _nempty: true } }, { a: [] }), [['a', 'nempty']]);
    assert.deepEqual(fails({ a: { _submitted: true } }, {}), [['a', 'submitted']]);
    // Other rules leave fields the payload does not hold alone.
    assert.deepEqual(fails({ a: { _nnull: true, _eq: 1 } }, { b: 1 }), []);
  });

  it('reports every failing condition of _and, and _or only when every branch fails', () => {
    assert.deepEqual(fails({ _and: [{ a: { _eq: 1 } }, { b: { _eq: 2 } }] }, { a: 0, b: 0 }), [
      ['a', 'eq'],
      ['b', 'eq'],
    ]);
    assert.deepEqual(fails({ _or: [{ a: { _eq: 1 } }, { b: { _eq: 2 } }] }, { a: 0, b: 2 }), []);
    assert.deepEqual(fails({ _or: [{ a: { _eq: 1 } }, { b: { _eq: 2 } }] }, { a: 0, b: 0 }), [
      ['a', 'eq'],
      ['b', 'eq'],
    ]);
    assert.deepEqual(fails({ author: { name: { _nempty: true } } }, { author: { name: '' } }), [['name', 'nempty']]);
  });

  it('describes the failure as Directus does', () => {
    const [failure] = evaluate({ title: { _contains: 'x' } }, { title: 'abc' });
    assert.deepEqual(failure, {
      field: 'title',
      type: 'contains',
      detail: 'Value has to contain "x".',
      extra: { substring: 'x' },
    });
  });
});
