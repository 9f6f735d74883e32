/**
 * What a dialect offers for schema changes (fields, collections, relations). Vendor-neutral: the services describe
 * the columns they want as ColumnSpecs (column-spec.ts) in DdlSteps (schema-steps.ts); src/db/dialects/<vendor>/ddl.ts renders each
 * step as statements, and schema-executor.ts runs them.
 */
import type { Knex } from 'knex';
import type { ColumnInfo } from '../schema/types.js';
import type { DdlStep, Refusal } from '../schema-admin/plan/schema-steps.js';
import type { ConversionCheck } from '../schema-admin/plan/type-conversions.js';
import type { ColumnSpec } from '../schema-admin/plan/column-spec.js';

/** How introspection reports a column's storage; what `sameStorage` compares. */
export interface StorageShape {
  data_type: string;
  max_length?: number | null;
  numeric_precision?: number | null;
  numeric_scale?: number | null;
}

/**
 * One statement of a schema change, as a dialect renders it. `undo` puts it back where DDL is not transactional
 * (MySQL/MariaDB; run last-first when a later statement fails). `refusal`: when the database rejects the statement
 * in the way the dialect's `refuses` recognises, the change is refused with this reason instead.
 */
export interface DdlStatement {
  sql: string;
  params?: unknown[];
  undo?: DdlStatement[];
  refusal?: string;
}

/** What a dialect may read while it renders a step: the catalog as the change's previous statements left it. */
export interface DdlCatalog {
  query(sql: string, params?: unknown[]): Promise<Record<string, any>[]>;
  /** The schema change in progress (one per transaction), for what a dialect tracks across its statements. */
  readonly session: object;
}

export interface SchemaDdl {
  /** DDL takes part in transactions (rolled back with them). */
  readonly transactional: boolean;
  /** Column comments are kept by the database. */
  readonly comments: boolean;
  /** A uuid column is recognisable as such without the `uuid` special flag. */
  readonly nativeUuid: boolean;
  /** A column that is no key can auto-increment (a PostgreSQL `serial`), as a snapshot of such a table asks. */
  readonly autoIncrementBesideKey: boolean;
  /**
   * Runs a schema change in a transaction suited to it (SQLite: foreign keys off for table rebuilds, checked before
   * commit). The transaction is the DdlCatalog.session of the steps run in it.
   */
  transaction<T>(knex: Knex, work: (trx: Knex.Transaction) => Promise<T>): Promise<T>;
  /** Runs one statement on the connection behind `knex` (bypassing knex's `?` rewriting; announced as a `query` event). */
  run(knex: Knex, sql: string, params?: unknown[]): Promise<Record<string, any>[]>;
  /** How introspection would describe a column made from `spec`. */
  shape(spec: ColumnSpec): StorageShape;
  /**
   * The statements of a step, yielded one at a time: each runs before the next is asked for, so reads of the catalog
   * see what the step's earlier statements did.
   */
  statements(step: DdlStep, catalog: DdlCatalog): AsyncGenerator<DdlStatement>;
  /** The rejection `DdlStatement.refusal` is about (MySQL/MariaDB: the two columns of a foreign key differ in type). */
  refuses(error: unknown): boolean;
  /** A `select count(*) as n` of the non-null values of `column` that would not survive the conversion to `target`. */
  lossyCount(table: string, column: string, check: ConversionCheck, target: ColumnSpec): DdlStatement;
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

/** A check of a schema change found values that forbid it (`count` of them); the service says why. */
export class SchemaCheckFailedError extends Error {
  constructor(
    readonly refusal: Refusal,
    readonly count: number,
  ) {
    super(
      refusal.kind === 'invalid'
        ? refusal.message
        : refusal.kind === 'counted'
          ? `${refusal.before}${count}${refusal.after}`
          : `${refusal.collection}.${refusal.field} holds nulls`,
    );
  }
}
