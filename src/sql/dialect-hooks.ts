/**
 * What the SQL compiler asks of a dialect. Implemented in src/db/dialects/<vendor>/sql-hooks.ts; the compiler
 * itself names no vendor.
 */
import type { FieldOverview } from '../schema/types.js';

export interface SqlDialect {
  quote(identifier: string): string;
  /** Placeholder for the n-th (1-based) bound parameter. */
  placeholder(index: number): string;
  /** A logical value (see plan/value-coercion.ts) → what the driver binds for a column of this field. */
  bind(field: FieldOverview, value: unknown): unknown;
  /** The column as it is compared (a dialect whose columns may hold dates in several forms normalises them here). */
  comparable(column: string, field: FieldOverview): string;
  /** The column as text, for LIKE on non-text types. */
  asText(column: string): string;
  /** Suffix after a LIKE pattern that uses `\` as the escape character ('' where that is the default). */
  likeEscape: string;
  /** The column as a JSON-embeddable value in the wire format of its type. */
  wireValue(column: string, field: FieldOverview): string;
  /** JSON object from [key, expression] pairs. */
  jsonObject(pairs: [string, string][]): string;
  /** JSON array aggregate of `expression` ordered by `orderBy`, '[]' when there are no rows, as text. */
  jsonArrayText(expression: string, orderBy: string): string;
  /** A JSON object expression as text. */
  jsonText(expression: string): string;
  /** Null ordering that makes NULL the smallest value. */
  nullsOrder(descending: boolean): string;
  /** LIMIT/OFFSET clause (limit null = none); `param` binds a value and returns its placeholder. */
  limitOffset(limit: number | null, offset: number, param: (value: unknown) => string): string;
  /** Quote for string literals inside SQL (keys of JSON objects). */
  stringLiteral(text: string): string;
}
