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

/** A column default: none, the clock (`CURRENT_TIMESTAMP`), or a literal (json defaults are their JSON text). */
export type ColumnDefault = { kind: 'none' } | { kind: 'now' } | { kind: 'value'; value: string | number | boolean };

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
