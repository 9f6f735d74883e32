/** Plans compiled by the SQL snapshot tests (test/sql/read-compiler.test.ts). */
import { planRead } from '../../src/plan/read-planner.js';
import { compileRead } from '../../src/sql/read-compiler.js';
import { parseQuery } from '../../src/request/parse-query.js';
import { SMALL_SCHEMA, ADMIN_ACCOUNTABILITY, DIALECTS } from './small-schema.js';
export const CASES: [string, Record<string, unknown>, boolean][] = [
  ['filter, sort, limit and offset', { fields: 'id,title', filter: { rating: { _gte: '3' } }, sort: '-rating,id', limit: '10', offset: '20' }, false],
  ['search-like filter with LIKE escapes, both counts, no limit', { fields: 'id', filter: { title: { _icontains: '50%_x' } }, meta: '*', limit: '-1' }, false],
  ['one item by key with every wire format', { fields: '*' }, true],
];
export function compileCase(raw: Record<string, unknown>, single: boolean, dialect: string) {
  const q = parseQuery(raw, { queryLimitMax: -1, maxRelationalDepth: 10 });
  if (single) q.keys = ['7'];
  const plan = planRead('articles', q, { schema: SMALL_SCHEMA, accountability: ADMIN_ACCOUNTABILITY, queryLimitDefault: 100, now: new Date('2026-01-01T00:00:00Z'), single });
  return compileRead(plan, DIALECTS[dialect]!);
}
