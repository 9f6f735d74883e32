/**
 * What a dialect offers for schema changes (fields, collections, relations). Vendor-neutral: the services describe
 * the columns they want as ColumnSpecs; src/db/dialects/<vendor>/ddl.ts writes the DDL. Every method runs on the
 * knex handle it is given (the schema change's transaction where the database has transactional DDL).
 */
import type { Knex } from 'knex';
import type { ColumnInfo, ForeignKeyInfo } from '../schema/types.js';
import type { ConversionCheck } from './type-conversions.js';

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

/** How introspection reports a column's storage; what `sameStorage` compares. */
export interface StorageShape {
  data_type: string;
  max_length?: number | null;
  numeric_precision?: number | null;
  numeric_scale?: number | null;
}

/**
 * Puts a non-transactional change back (MySQL/MariaDB). Dialects with transactional DDL return null: the
 * transaction's rollback does it.
 */
export type Undo = (knex: Knex) => Promise<void>;

export interface SchemaDdl {
  /** DDL takes part in transactions (rolled back with them). */
  readonly transactional: boolean;
  /** Column comments are kept by the database. */
  readonly comments: boolean;
  /** A uuid column is recognisable as such without the `uuid` special flag. */
  readonly nativeUuid: boolean;
  /** Runs a schema change in a transaction suited to it (SQLite: foreign keys off for table rebuilds, checked before commit). */
  transaction<T>(knex: Knex, work: (trx: Knex.Transaction) => Promise<T>): Promise<T>;
  /** How introspection would describe a column made from `spec`. */
  shape(spec: ColumnSpec): StorageShape;
  createTable(knex: Knex, table: string, columns: ColumnSpec[]): Promise<Undo | null>;
  addColumn(knex: Knex, table: string, column: ColumnSpec): Promise<Undo | null>;
  /**
   * Changes a column to `target`. `from` is the check the conversion passed (how values are converted follows it);
   * `keys` are the single-column foreign keys that involve the column on either side.
   */
  alterColumn(
    knex: Knex,
    table: string,
    current: ColumnInfo,
    target: ColumnSpec,
    changes: ColumnChanges,
    conversion: ConversionCheck | null,
    keys: ForeignKeyInfo[],
  ): Promise<Undo | null>;
  /** Drops a column (and the foreign keys and indexes it is part of; `keys` as for alterColumn). */
  dropColumn(knex: Knex, table: string, column: string, keys: ForeignKeyInfo[]): Promise<void>;
  /** Drops a table; `keys` are the foreign keys of other tables that reference it, dropped first. */
  dropTable(knex: Knex, table: string, keys: ForeignKeyInfo[]): Promise<void>;
  addForeignKey(knex: Knex, key: ForeignKeyInfo): Promise<Undo | null>;
  dropForeignKey(knex: Knex, key: ForeignKeyInfo): Promise<Undo | null>;
  /** How many non-null values of `column` would not survive the conversion `check` to `target`. */
  countLossy(knex: Knex, table: string, column: string, check: ConversionCheck, target: ColumnSpec): Promise<number>;
}

/** True when a column made from `spec` would be stored exactly like `current` (no type change needed). */
export function sameStorage(ddl: SchemaDdl, current: ColumnInfo, spec: ColumnSpec): boolean {
  const shape = ddl.shape(spec);
  if (shape.data_type !== current.data_type) return false;
  if (shape.max_length !== undefined && shape.max_length !== current.max_length) return false;
  if (shape.numeric_precision !== undefined && shape.numeric_precision !== current.numeric_precision) return false;
  if (shape.numeric_scale !== undefined && shape.numeric_scale !== current.numeric_scale) return false;
  return true;
}

/** A schema change would leave rows whose foreign key points at nothing (raised before commit). */
export class ForeignKeyViolationError extends Error {
  constructor(
    readonly table: string,
    readonly rows: number,
  ) {
    super(`${rows} row(s) of ${table} would break a foreign key`);
  }
}

/** The database cannot make this change; `reason` says why in the client's terms (sent as INVALID_PAYLOAD). */
export class SchemaRefusedError extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}
