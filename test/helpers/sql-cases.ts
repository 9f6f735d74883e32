/** Plans compiled by the SQL snapshot tests (test/sql/read-compiler.test.ts). */
import { FULL_ACCESS } from '../../src/plan/access.js';
import { planRead } from '../../src/plan/read-planner.js';
import { compileRead } from '../../src/sql/read-compiler.js';
import { parseQuery } from '../../src/request/parse-query.js';
import { SMALL_SCHEMA, ADMIN_ACCOUNTABILITY, DIALECTS } from './small-schema.js';

export interface SqlCase {
  name: string;
  /** Query-string parameters as qs would parse them. */
  raw: Record<string, unknown>;
  /** Read one object by key 7. */
  single?: boolean;
  /** SEARCH-body keys. */
  keys?: string[];
}

export const CASES: SqlCase[] = [
  {
    name: 'filter, sort, limit and offset',
    raw: { fields: 'id,title', filter: { rating: { _gte: '3' } }, sort: '-rating,id', limit: '10', offset: '20' },
  },
  {
    name: 'search-like filter with LIKE escapes, both counts, no limit',
    raw: { fields: 'id', filter: { title: { _icontains: '50%_x' } }, meta: '*', limit: '-1' },
  },
  { name: 'one item by key with every wire format', raw: { fields: '*' }, single: true },
  {
    name: 'keys (a wrong-typed one dropped) and search over text and numbers',
    raw: { fields: 'id', search: '5', meta: 'filter_count' },
    keys: ['1', 'x', '3'],
  },
  {
    name: 'null, set, range and dynamic operators',
    raw: {
      fields: 'id',
      filter: {
        _and: [
          { rating: { _neq: 'null' } },
          { rating: { _in: '1,2' } },
          { price: { _nbetween: '1,2.5' } },
          { published: { _null: true } },
          { updated_at: { _lt: '$NOW(-1 day)' } },
          { title: { _nempty: true } },
          { metadata: { _empty: true } },
        ],
      },
      limit: '5',
      page: '3',
    },
  },
  {
    name: 'text operators, case-insensitive ones and text of non-text columns',
    raw: {
      fields: 'id',
      filter: {
        _or: [
          { title: { _ieq: 'Ab' } },
          { title: { _nstarts_with: 'b' } },
          { title: { _iends_with: 'C' } },
          { rating: { _contains: '1' } },
          { title: { _nicontains: 'd' } },
        ],
      },
    },
  },
  {
    name: 'nested m2o object and o2m list with deep sort, limit and filter per parent',
    raw: {
      fields: 'id,author.name,comments.body,comments.id',
      deep: { comments: { _sort: '-id', _limit: '2', _filter: { body: { _nnull: true } } } },
      limit: '10',
    },
  },
  {
    name: 'o2m keys, m2a items scoped per collection',
    raw: { fields: 'id,comments,blocks.item:authors.name,blocks.item:comments.body', limit: '5' },
  },
  {
    name: 'relational filters (m2o, o2m _none, m2a scope), function fields, sort by an m2o path, filter_count',
    raw: {
      fields: 'id,year(updated_at),count(comments)',
      filter: {
        author: { name: { _eq: 'Ada' } },
        comments: { _none: { body: { _contains: 'spam' } } },
        blocks: { 'item:authors': { name: { _eq: 'x' } } },
      },
      sort: '-author.name',
      meta: 'filter_count',
      limit: '5',
    },
  },
  {
    name: 'aggregate grouped by a field, a date part and an m2o path, sorted by count',
    raw: {
      aggregate: { count: '*', sum: 'price', avg: 'rating' },
      groupBy: 'author.name,year(updated_at)',
      sort: '-count',
    },
  },
];

export function compileCase(c: SqlCase, dialect: string) {
  const q = parseQuery(c.raw, { queryLimitMax: -1, maxRelationalDepth: 10 });
  if (c.single) q.keys = ['7'];
  if (c.keys) q.keys = c.keys;
  const plan = planRead('articles', q, {
    schema: SMALL_SCHEMA,
    access: FULL_ACCESS,
    accountability: ADMIN_ACCOUNTABILITY,
    queryLimitDefault: 100,
    now: new Date('2026-01-01T00:00:00Z'),
    single: c.single ?? false,
  });
  return compileRead(plan, DIALECTS[dialect]!);
}
