import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { thrownCode as code } from '../helpers/thrown.js';
import qs from 'qs';
import { dynamicPaths, parseFilter } from '../../src/request/parse-filter.js';
import { FILTER_OPERATORS } from '../../src/request/query.js';

describe('parseFilter', () => {
  it('parses every operator into a condition', () => {
    for (const operator of FILTER_OPERATORS) {
      const value = ['_in', '_nin'].includes(operator)
        ? [1, 2]
        : ['_between', '_nbetween'].includes(operator)
          ? [1, 2]
          : ['_null', '_nnull', '_empty', '_nempty'].includes(operator)
            ? true
            : 'x';
      assert.deepEqual(
        parseFilter({ title: { [operator]: value } }),
        { type: 'condition', field: 'title', operator, value },
        operator,
      );
    }
  });

  it('reads a bare value as _eq and several keys as _and', () => {
    assert.deepEqual(parseFilter({ status: 'draft' }), {
      type: 'condition',
      field: 'status',
      operator: '_eq',
      value: 'draft',
    });
    assert.deepEqual(parseFilter({ a: { _eq: 1, _neq: 2 } }), {
      type: 'logical',
      operator: '_and',
      children: [
        { type: 'condition', field: 'a', operator: '_eq', value: 1 },
        { type: 'condition', field: 'a', operator: '_neq', value: 2 },
      ],
    });
  });

  it('nests _and / _or at any depth', () => {
    assert.deepEqual(parseFilter({ _or: [{ a: { _eq: 1 } }, { _and: [{ b: { _gt: 2 } }, { c: { _null: true } }] }] }), {
      type: 'logical',
      operator: '_or',
      children: [
        { type: 'condition', field: 'a', operator: '_eq', value: 1 },
        {
          type: 'logical',
          operator: '_and',
          children: [
            { type: 'condition', field: 'b', operator: '_gt', value: 2 },
            { type: 'condition', field: 'c', operator: '_null', value: true },
          ],
        },
      ],
    });
  });

  it('parses relational paths and quantifiers', () => {
    assert.deepEqual(parseFilter({ author: { name: { _eq: 'Ada' } } }), {
      type: 'relation',
      field: 'author',
      quantifier: null,
      filter: { type: 'condition', field: 'name', operator: '_eq', value: 'Ada' },
    });
    assert.deepEqual(parseFilter({ tags: { _none: { name: { _eq: 'x' } } } }), {
      type: 'relation',
      field: 'tags',
      quantifier: '_none',
      filter: { type: 'condition', field: 'name', operator: '_eq', value: 'x' },
    });
    assert.deepEqual(parseFilter({ 'year(date)': { _eq: 2024 } }), {
      type: 'condition',
      field: 'year(date)',
      operator: '_eq',
      value: 2024,
    });
  });

  it('coerces string values', () => {
    const value = (v: unknown, op = '_eq') => (parseFilter({ f: { [op]: v } }) as { value: unknown }).value;
    assert.equal(value('true'), true);
    assert.equal(value('false'), false);
    assert.equal(value('null'), null);
    assert.equal(value('NULL'), null);
    assert.equal(value('42'), '42');
    assert.deepEqual(value('a,b,c', '_in'), ['a', 'b', 'c']);
    assert.deepEqual(value({ 0: 'x', 1: 'y' }, '_in'), ['x', 'y']);
    assert.deepEqual(value('1,5', '_between'), ['1', '5']);
    assert.equal(value('', '_null'), true);
    assert.equal(value('false', '_nnull'), false);
    assert.equal(value(0, '_empty'), false);
  });

  it('parses dynamic variables', () => {
    const value = (v: string) => (parseFilter({ f: { _lt: v } }) as { value: unknown }).value;
    assert.deepEqual(value('$NOW'), { dynamic: 'NOW', offsetMs: 0 });
    assert.deepEqual(value('$NOW(-1 year)'), { dynamic: 'NOW', offsetMs: -31_536_000_000 });
    assert.deepEqual(value('$NOW(+2 hours)'), { dynamic: 'NOW', offsetMs: 7_200_000 });
    assert.deepEqual(value('$NOW(3 days)'), { dynamic: 'NOW', offsetMs: 259_200_000 });
    assert.deepEqual(value('$CURRENT_USER'), { dynamic: 'CURRENT_USER' });
    assert.deepEqual(value('$CURRENT_ROLE'), { dynamic: 'CURRENT_ROLE' });
    assert.equal(value('$OTHER'), '$OTHER');
  });

  it('reads JSON strings and bracket syntax', () => {
    assert.deepEqual(parseFilter('{"a":{"_eq":1}}'), { type: 'condition', field: 'a', operator: '_eq', value: 1 });
    const fromQs = qs.parse('filter[title][_eq]=x&filter[id][_in][]=1&filter[id][_in][]=2').filter;
    assert.deepEqual(parseFilter(fromQs), {
      type: 'logical',
      operator: '_and',
      children: [
        { type: 'condition', field: 'title', operator: '_eq', value: 'x' },
        { type: 'condition', field: 'id', operator: '_in', value: ['1', '2'] },
      ],
    });
    assert.equal(parseFilter(''), null);
    assert.equal(parseFilter({}), null);
  });

  it('refuses bad input with INVALID_QUERY', () => {
    const bad: unknown[] = [
      '{not json',
      '[1]',
      { a: { _bogus: 1 } },
      { a: { _regex: 'x' } },
      { a: { _json: {} } },
      { a: { _intersects: 'x' } },
      { _bogus: 1 },
      { _and: { a: 1 } },
      { _and: ['x'] },
      { a: { _in: [] } },
      { a: { _in: '' } },
      { a: { _between: [1] } },
      { a: { _between: '1,2,3' } },
      { a: { _eq: { b: 1 } } },
      { a: { _eq: [1] } },
      { a: { _eq: '' } },
      { a: { _null: 'maybe' } },
      { a: { _eq: 1, b: 2 } },
      { a: { _lt: '$NOW(-1 fortnight)' } },
      { a: { _lt: '$NOW(soon)' } },
      { a: { _eq: '$CURRENT_USER.e mail' } },
      { a: { _some: 'x' } },
    ];
    for (const input of bad)
      assert.equal(
        code(() => parseFilter(input)),
        'INVALID_QUERY',
        JSON.stringify(input),
      );
  });

  it('reads dynamic variables with paths and the list variables', () => {
    const value = (raw: string, op = '_eq') => (parseFilter({ f: { [op]: raw } }) as { value: unknown }).value;
    assert.deepEqual(value('$CURRENT_USER.role.name'), { dynamic: 'CURRENT_USER', path: ['role', 'name'] });
    assert.deepEqual(value('$CURRENT_ROLE.name'), { dynamic: 'CURRENT_ROLE', path: ['name'] });
    assert.deepEqual(value('$CURRENT_ROLES', '_in'), [{ dynamic: 'CURRENT_ROLES' }]);
    assert.deepEqual(value('$CURRENT_POLICIES', '_nin'), [{ dynamic: 'CURRENT_POLICIES' }]);
    assert.deepEqual(
      dynamicPaths(
        parseFilter({
          _or: [{ a: { _eq: '$CURRENT_USER.email' } }, { b: { c: { _in: ['$CURRENT_ROLE.name', 'x'] } } }],
        }),
      ),
      ['$CURRENT_USER.email', '$CURRENT_ROLE.name'],
    );
  });
});
