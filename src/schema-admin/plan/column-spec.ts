/**
 * The column a field should have, as the schema planners describe it in DDL steps (schema-steps.ts): vendor-neutral
 * data that each dialect renders (src/db/ddl-renderer.ts and the dialects' ddl.ts).
 */

/** Service types that own a column, as they are stored (csv is stored as text, hash as string; alias has none). */
export type StorageType =
  | 'string'
  | 'text'
  | 'integer'
  | 'bigInteger'
  | 'boolean'
  | 'decimal'
  | 'float'
  | 'json'
  | 'date'
  | 'dateTime'
  | 'timestamp'
  | 'time'
  | 'uuid'
  | 'binary';

/**
 * A column default: none, a function the database calls for each new row (`now`: the clock, `CURRENT_TIMESTAMP`;
 * `today`: the date, `CURRENT_DATE`; `randomUuid`: a new uuid, `gen_random_uuid()`), or a literal (json
 * defaults are their JSON text).
 */
export type ColumnDefault =
  | { kind: 'none' }
  | { kind: 'now' }
  | { kind: 'today' }
  | { kind: 'randomUuid' }
  | { kind: 'value'; value: string | number | boolean };

/** How snapshots and field objects spell the function defaults (introspection reads every database's spelling so). */
export const FUNCTION_DEFAULTS = { now: 'CURRENT_TIMESTAMP', today: 'CURRENT_DATE', randomUuid: 'gen_random_uuid()' };

/** The column a field should have. */
export interface ColumnSpec {
  name: string;
  type: StorageType;
  /** string only. */
  maxLength: number | null;
  /** decimal only. */
  precision: number | null;
  scale: number | null;
  nullable: boolean;
  default: ColumnDefault;
  primaryKey: boolean;
  autoIncrement: boolean;
  unique: boolean;
  indexed: boolean;
  comment: string | null;
}

/** Which attributes of an existing column an alteration changes. */
export interface ColumnChanges {
  type: boolean;
  nullable: boolean;
  default: boolean;
  comment: boolean;
  unique: boolean;
  indexed: boolean;
}
