/**
 * Limited row sets: a level's rows filtered, sorted and limited in a derived table whose ORDER BY and LIMIT sit
 * directly on the table, so the planner keeps its usual plans (an index walked forward or backward and stopped after
 * `limit` rows, or a top-N sort). The sort keys travel as extra columns, and the JSON aggregate above orders the kept
 * rows by them again: only those rows, never the whole table. Used for the root list of a read and, on dialects
 * whose subqueries in FROM may refer to the enclosing row (PostgreSQL, SQLite), for nested o2m lists too.
 */
import type { NestedList, SqlDialect } from './dialect-hooks.js';

/** One ORDER BY term, already compiled. */
export interface SortTerm {
  expression: string;
  descending: boolean;
}

export function orderClause(terms: SortTerm[]): string {
  return terms.length ? ` order by ${terms.map((t) => `${t.expression} ${t.descending ? 'desc' : 'asc'}`).join(', ')}` : '';
}

function sortKey(dialect: SqlDialect, index: number): string {
  return dialect.quote(`__strata_s${index}`);
}

export interface LimitedRows {
  /** The columns the level reads (duplicates are dropped). */
  columns: string[];
  /** `"table" as alias`. */
  from: string;
  /** The WHERE condition ('' = none). */
  where: string;
  sort: SortTerm[];
  limit: number | null;
  offset: number;
  param: (value: unknown) => string;
}

/** The derived table's SELECT, and the ORDER BY (without the keyword, '' when unsorted) of its rows as `alias`. */
export function limitedRows(rows: LimitedRows, dialect: SqlDialect): { select: string; order: (alias: string) => string } {
  const keys = rows.sort.map((t, i) => `${t.expression} as ${sortKey(dialect, i)}`);
  const where = rows.where ? ` where ${rows.where}` : '';
  const select = `select ${[...new Set(rows.columns), ...keys].join(', ')} from ${rows.from}${where}${orderClause(rows.sort)}${dialect.limitOffset(rows.limit, rows.offset, rows.param)}`;
  const order = (alias: string) => rows.sort.map((t, i) => `${alias}.${sortKey(dialect, i)} ${t.descending ? 'desc' : 'asc'}`).join(', ');
  return { select, order };
}

/** `aggregate(element, orderBy)` gathers the elements into a JSON array ordered by `orderBy` ('' = unordered). */
export function derivedTableList(list: NestedList, dialect: SqlDialect, aggregate: (element: string, orderBy: string) => string): string {
  const { select, order } = limitedRows(list, dialect);
  return `(select ${aggregate(list.element, order(list.alias))} from (${select}) as ${list.alias})`;
}
