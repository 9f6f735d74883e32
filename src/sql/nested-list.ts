/**
 * Limited row sets: a level's rows filtered, sorted and limited in a derived table whose ORDER BY and LIMIT sit
 * directly on the table, so the planner keeps its usual plans (an index walked forward or backward and stopped after
 * `limit` rows, or a top-N sort). Sort keys that are not columns of the level travel as extra columns, and the JSON
 * aggregate above orders the kept rows by them again: only those rows, never the whole table. Used for the root list of a read and, on dialects
 * whose subqueries in FROM may refer to the enclosing row (PostgreSQL, SQLite), for nested o2m lists too.
 */
import type { NestedList, SortTerm, SqlDialect } from './dialect-hooks.js';

export function orderClause(terms: SortTerm[]): string {
  return terms.length
    ? ` order by ${terms.map((t) => `${t.expression} ${t.descending ? 'desc' : 'asc'}`).join(', ')}`
    : '';
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
  /** The table's key columns (over the same alias), for dialects that find a page's keys first; [] = none. */
  keys?: string[];
  param: (value: unknown) => string;
}

/** The derived table's SELECT, and the ORDER BY (without the keyword, '' when unsorted) of its rows as `alias`. */
export function limitedRows(
  rows: LimitedRows,
  dialect: SqlDialect,
): { select: string; order: (alias: string) => string } {
  const columns = [...new Set(rows.columns)];
  // The table's alias inside the derived table (`from` is `"table" as alias`); the derived table takes the same one.
  const inner = rows.from.slice(rows.from.lastIndexOf(' as ') + 4);
  // A sort on a column the level reads anyway is ordered by that column: a second copy of it would make PostgreSQL
  // build a new row for every scanned row (a projection) instead of passing the table's rows on as they are.
  const keys: string[] = [];
  const outer = rows.sort.map((t, i) => {
    if (columns.includes(t.expression) && t.expression.startsWith(`${inner}.`))
      return (alias: string) => `${alias}${t.expression.slice(inner.length)}`;
    keys.push(`${t.expression} as ${sortKey(dialect, i)}`);
    return (alias: string) => `${alias}.${sortKey(dialect, i)}`;
  });
  const where = rows.where ? ` where ${rows.where}` : '';
  const limited = (list: string[]) =>
    `select ${list.join(', ')} from ${rows.from}${where}${orderClause(rows.sort)}${dialect.limitOffset(rows.limit, rows.offset, rows.param)}`;
  const select =
    // (A list of nothing but the keys is already what the inner query reads.)
    rows.keys?.length &&
    dialect.keysFirst(rows.limit, rows.offset) &&
    [...columns, ...keys].some((c) => !rows.keys!.includes(c))
      ? keysFirst(rows.keys, limited(rows.keys), [...columns, ...keys], rows.from, inner, dialect)
      : limited([...columns, ...keys]);
  const order = (alias: string) =>
    rows.sort.map((t, i) => `${outer[i]!(alias)} ${t.descending ? 'desc' : 'asc'}`).join(', ');
  return { select, order };
}

/**
 * The page's keys found first, by a query that reads nothing but the sort and filter columns and the key (which an
 * index on the sort column carries: InnoDB's secondary indexes hold the primary key), then joined back to the table
 * for the kept rows only. The join does not order: the JSON aggregate above orders the kept rows again.
 */
function keysFirst(
  keyColumns: string[],
  keysSelect: string,
  columns: string[],
  from: string,
  inner: string,
  dialect: SqlDialect,
): string {
  const page = dialect.quote('__strata_k');
  const on = keyColumns.map((c) => `${c} = ${page}${c.slice(inner.length)}`).join(' and ');
  return `select ${columns.join(', ')} from (${keysSelect}) as ${page} join ${from} on ${on}`;
}

/** `aggregate(element, orderBy)` gathers the elements into a JSON array ordered by `orderBy` ('' = unordered). */
export function derivedTableList(
  list: NestedList,
  dialect: SqlDialect,
  aggregate: (element: string, orderBy: string) => string,
): string {
  const { select, order } = limitedRows(list, dialect);
  return `(select ${aggregate(list.element, order(list.alias))} from (${select}) as ${list.alias})`;
}
