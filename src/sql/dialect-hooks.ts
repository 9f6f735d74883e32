/**
 * What the SQL compiler asks of a dialect. Implemented in src/db/dialects/<vendor>/sql-hooks.ts; the compiler
 * itself names no vendor.
 */
import type { DatePart } from '../plan/read-plan.js';
import type { JsonPathSegment } from '../request/json-path.js';
import type { FieldOverview } from '../schema/types.js';

/** One ORDER BY term, already compiled. */
export interface SortTerm {
  expression: string;
  descending: boolean;
}

/** The rows of a related level gathered into a JSON array (one parent's o2m list). */
export interface NestedList {
  /** JSON element per row, written over `alias`. */
  element: string;
  /** Quoted alias of the related rows. */
  alias: string;
  /** `"table" as alias`. */
  from: string;
  /** Join to the parent AND the level's filter. */
  where: string;
  /** [] = no order. */
  sort: SortTerm[];
  limit: number | null;
  offset: number;
  /** The alias's columns `element` reads, for dialects that go through a derived table. */
  columns: string[];
  /** The related table's primary key (column and field), for dialects that gather the kept keys first. */
  key: { column: string; field: FieldOverview } | null;
  param: (value: unknown) => string;
}

export interface SqlDialect {
  quote(identifier: string): string;
  /** Placeholder for the n-th (1-based) bound parameter. */
  placeholder(index: number): string;
  /** Most parameters one statement may bind (the driver's limit). */
  maxParameters: number;
  /**
   * `column [not] in (...)` for a list too long to bind value by value (one parameter holding the whole list), or
   * null where the driver takes any number of values.
   */
  listMembership(column: string, values: unknown[], negate: boolean, param: (value: unknown) => string): string | null;
  /** A logical value (see plan/value-coercion.ts) → what the driver binds for a column of this field. */
  bind(field: FieldOverview, value: unknown): unknown;
  /** The column as it is compared (a dialect whose columns may hold dates in several forms normalises them here). */
  comparable(column: string, field: FieldOverview): string;
  /**
   * The column as it is sorted: as stored wherever the type has an order, so that an index on it serves the sort.
   */
  sortable(column: string, field: FieldOverview): string;
  /**
   * A looser condition on the column as stored, implied by the exact comparison `operator` with these (bound)
   * values, that an index can serve; null where the exact comparison is already indexable (or nothing is).
   */
  indexableBound?(
    column: string,
    field: FieldOverview,
    operator: string,
    values: unknown[],
    param: (value: unknown) => string,
  ): string | null;
  /** The column as text, for LIKE on non-text types. */
  asText(column: string): string;
  /** Suffix after a LIKE pattern that uses `\` as the escape character ('' where that is the default). */
  likeEscape: string;
  /** The column as a JSON-embeddable value in the wire format of its type. */
  wireValue(column: string, field: FieldOverview): string;
  /** JSON object from [key, expression] pairs. */
  jsonObject(pairs: [string, string][]): string;
  /** JSON array aggregate of `expression` ordered by `orderBy` ('' = unordered), '[]' when there are no rows, as text. */
  jsonArrayText(expression: string, orderBy: string): string;
  /** A JSON object expression as text. */
  jsonText(expression: string): string;
  /**
   * Whether a list with this limit and offset finds its keys first (`select key … order by … limit … offset …`
   * joined back to the table for the rows): true where the database would otherwise sort the whole table to skip
   * `offset` rows that an index on the sort column (which carries the key) could walk through without the rows.
   */
  keysFirst(limit: number | null, offset: number): boolean;
  /** LIMIT/OFFSET clause (limit null = none); `param` binds a value and returns its placeholder. */
  limitOffset(limit: number | null, offset: number, param: (value: unknown) => string): string;
  /** Whether limits are written into the SQL rather than bound: reads that differ in a limit differ in SQL. */
  literalLimits: boolean;
  /** Quote for string literals inside SQL (keys of JSON objects). */
  stringLiteral(text: string): string;
  /** A JSON value produced by a subquery or CASE, made embeddable in an enclosing JSON object. */
  embedJson(expression: string): string;
  /** A text expression as a JSON string value (null stays null). */
  jsonString(expression: string): string;
  /** One parent's related rows as an embeddable JSON array ('[]' when none), sorted and limited in SQL. */
  nestedList(list: NestedList): string;
  /** An integer date part of a date/time column (UTC; weekday 0 = Sunday; ISO weeks). */
  datePart(part: DatePart, column: string, field: FieldOverview): string;
  /**
   * The JSON value at `path` (keys and array indexes) inside a JSON column, as an embeddable JSON value; null where
   * the column holds no JSON or the path leads nowhere.
   */
  jsonPath(column: string, path: JsonPathSegment[]): string;
  /** A jsonPath value as an answer carries it (in the compact form every dialect answers). */
  jsonPathOutput(expression: string): string;
  /** Number of elements of a JSON array column; null for anything else. */
  jsonLength(column: string, field: FieldOverview): string;
  /** A key held as text (m2a junction `item`) as a value comparable with `keyField`; null when it cannot be one. */
  keyFromText(expression: string, keyField: FieldOverview): string;
  /** A numeric expression as a double-precision float. */
  /** The value as text (a JSON string once embedded). */
  toText(expression: string): string;
  toFloat(expression: string): string;
  /** An average (avg/avgDistinct) as the JSON number it answers: the exact decimal where the database has one. */
  average(expression: string): string;
  /**
   * Statements that take and give back a named lock held by one connection across the whole server (so that
   * instances starting together migrate one at a time); null where the database is a file of one process.
   */
  namedLock(name: string): { lock: string; unlock: string } | null;
}
