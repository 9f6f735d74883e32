import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import qs from 'qs';
import { parseQuery } from '../../src/request/parse-query.js';

const options = { queryLimitMax: -1, maxRelationalDepth: 3 };
const parse = (raw: Record<string, unknown>, o = options) => parseQuery(raw, o);
const fromUrl = (text: string, o = options) =>
  parseQuery(qs.parse(text, { depth: 10, arrayLimit: 500 }) as Record<string, unknown>, o);

function reason(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    const e = error as { code?: string; extensions?: { reason?: string } };
    return `${e.code}: ${e.extensions?.reason}`;
  }
  return 'OK';
}

describe('parseQuery', () => {
  it('parses every parameter', () => {
    assert.deepEqual(
      fromUrl('fields=id,title&sort=-id,title&limit=10&offset=5&page=2&search=x&meta=*&filter[id][_eq]=1'),
      {
        fields: ['id', 'title'],
        sort: [
          { field: 'id', order: 'desc' },
          { field: 'title', order: 'asc' },
        ],
        limit: 10,
        offset: 5,
        page: 2,
        search: 'x',
        meta: ['total_count', 'filter_count'],
        filter: { type: 'condition', field: 'id', operator: '_eq', value: '1' },
      },
    );
  });

  it('reads lists as comma strings or arrays, trimmed, keeping commas inside parentheses', () => {
    assert.deepEqual(fromUrl('fields[]=a&fields[]=b, c').fields, ['a', 'b', 'c']);
    assert.deepEqual(parse({ fields: 'json(data, a.b),id' }).fields, ['json(data, a.b)', 'id']);
    assert.deepEqual(parse({ meta: 'total_count' }).meta, ['total_count']);
    assert.deepEqual(parse({ meta: ['filter_count', 'filter_count'] }).meta, ['filter_count']);
    assert.deepEqual(parse({ groupBy: 'a,year(b)' }).groupBy, ['a', 'year(b)']);
  });

  it('treats limit -1 as unlimited, or as the maximum when one is set', () => {
    assert.equal(parse({ limit: '-1' }).limit, -1);
    assert.equal(parse({ limit: -1 }, { ...options, queryLimitMax: 50 }).limit, 50);
    assert.equal(parse({ limit: 50 }, { ...options, queryLimitMax: 50 }).limit, 50);
    assert.equal(parse({ page: '0' }).page, 1);
  });

  it('reads deep, alias and aggregate as objects or JSON', () => {
    assert.deepEqual(parse({ deep: '{"tags":{"_limit":3}}' }).deep, { tags: { limit: 3 } });
    assert.deepEqual(
      fromUrl(
        'deep[articles][_sort]=-id&deep[articles][_filter][status][_eq]=x&deep[articles][tags][_limit]=1&deep[articles][_page]=2&deep[articles][_search]=a',
      ).deep,
      {
        articles: {
          sort: [{ field: 'id', order: 'desc' }],
          filter: { type: 'condition', field: 'status', operator: '_eq', value: 'x' },
          page: 2,
          search: 'a',
          deep: { tags: { limit: 1 } },
        },
      },
    );
    assert.deepEqual(fromUrl('alias[yr]=year(date)').alias, { yr: 'year(date)' });
    assert.deepEqual(fromUrl('aggregate[count]=*&aggregate[sum]=a,b').aggregate, { count: ['*'], sum: ['a', 'b'] });
  });

  it('ignores unknown parameters', () => {
    assert.deepEqual(parse({ something: 'else', access_token: 'x' }), {});
  });

  it('reads what Directus reads: empty parameters, Number() integers, deep it cannot use', () => {
    assert.deepEqual(parse({ deep: '', alias: '', aggregate: '', groupBy: '', fields: '', sort: ',' }), {
      fields: [],
      sort: [],
    });
    assert.deepEqual(parse({ limit: '', offset: ' ', page: '' }), { limit: 0, offset: 0, page: 1 });
    assert.deepEqual(parse({ limit: '1e1', offset: '5.0' }), { limit: 10, offset: 5 });
    for (const deep of ['{', '[1]', '3', { tags: 3 }, { _limit: 1 }, { tags: { _nope: 1 } }]) {
      assert.deepEqual(
        parse({ deep }).deep,
        typeof deep === 'object' && 'tags' in deep && typeof deep.tags === 'object' ? { tags: {} } : {},
        JSON.stringify(deep),
      );
    }
  });

  it('refuses malformed parameters with INVALID_QUERY naming them', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ limit: 'abc' }, '"limit"'],
      [{ limit: '1.5' }, '"limit"'],
      [{ limit: '-2' }, '"limit"'],
      [{ offset: '-1' }, '"offset"'],
      [{ page: 'x' }, '"page"'],
      [{ meta: 'everything' }, '"meta"'],
      [{ fields: { a: 1 } }, '"fields"'],
      [{ sort: 5 }, '"sort"'],
      [{ filter: '{' }, 'filter'],
      [{ deep: { tags: { _limit: 'x' } } }, 'deep'],
      [{ alias: '{' }, 'alias'],
      [{ aggregate: '{' }, 'aggregate'],
      [{ limit: '1e400' }, '"limit"'],
      [{ alias: { 'a.b': 'c' } }, '"alias"'],
      [{ alias: { a: 1 } }, '"alias"'],
      [{ fields: 'a.b.c.d' }, 'depth'],
      [{ sort: 'a.b.c.d' }, 'depth'],
      [{ filter: { a: { b: { c: { d: { _eq: 1 } } } } } }, 'depth'],
      [{ deep: { a: { b: { c: { d: { _limit: 1 } } } } } }, 'depth'],
      [{ deep: { a: { b: { _sort: 'c.d' } } } }, 'depth'],
      // An empty rule is a level, as Directus counts the filter as written.
      [{ filter: { a: { b: { c: { d: {} } } } } }, 'depth'],
      [{ filter: { a: { _some: { b: { c: { d: {} } } } } } }, 'depth'],
      [{ deep: { a: { _filter: { b: { c: { d: {} } } } } } }, 'depth'],
    ];
    for (const [raw, word] of cases) {
      const result = reason(() => parse(raw));
      assert.match(result, /^INVALID_QUERY: /, JSON.stringify(raw));
      assert.ok(result.includes(word), `${result} should name ${word}`);
    }
    for (const within of [{ filter: { a: { b: { c: {} } } } }, { deep: { a: { _filter: { b: { c: {} } } } } }])
      assert.equal(
        reason(() => parse(within)),
        'OK',
        JSON.stringify(within),
      );
    assert.match(
      reason(() => parse({ limit: 51 }, { ...options, queryLimitMax: 50 })),
      /INVALID_QUERY: "limit"/,
    );
  });
});
