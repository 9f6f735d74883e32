/**
 * The derived-table form of a nested list, for dialects whose subqueries in FROM may refer to the enclosing row
 * (PostgreSQL, SQLite): the level's rows are filtered, sorted and limited first, numbered, and only then turned
 * into JSON elements, so a parent with thousands of children costs only the rows it keeps.
 */
import type { NestedList, SqlDialect } from './dialect-hooks.js';

export const ROW_NUMBER = '__strata_row';

/** `aggregate(element, orderBy)` gathers the elements into a JSON array ordered by `orderBy`. */
export function derivedTableList(list: NestedList, dialect: SqlDialect, aggregate: (element: string, orderBy: string) => string): string {
  const rowNumber = dialect.quote(ROW_NUMBER);
  const order = list.orderBy ? ` order by ${list.orderBy}` : '';
  const columns = [...new Set(list.columns), `row_number() over (${order.trim()}) as ${rowNumber}`].join(', ');
  const window = dialect.limitOffset(list.limit, list.offset, list.param);
  const inner = `select ${columns} from ${list.from} where ${list.where}${order}${window}`;
  return `(select ${aggregate(list.element, `${list.alias}.${rowNumber}`)} from (${inner}) as ${list.alias})`;
}
