/**
 * What differs between database vendors, behind one interface. Only src/db/dialects/* implements it and names a
 * vendor; everything else talks to a Dialect.
 */
import type { Knex } from 'knex';
import type { DbClient } from '../config/config.js';
import type { ColumnInfo, ServiceType, TableInfo } from '../schema/types.js';
import type { DriverErrorClass } from '../errors/database-error.js';
import type { SchemaDdl } from './schema-ddl.js';
import type { SqlDialect } from '../sql/dialect-hooks.js';
import type { WriteDialect } from '../sql/write-hooks.js';

/** A connection of the raw driver, as knex's pool hands it out. */
export type RawConnection = unknown;

/**
 * Reads run away from the event loop (SQLite: worker threads with connections of their own), for a driver that
 * would otherwise run them inline. Errors come back as the driver's, with their codes, for the usual classification.
 */
/** How the read threads are used now: threads allowed, busy with a read, and reads queued behind a busy thread. */
export interface ReadThreadUse {
  max: number;
  busy: number;
  queued: number;
}

export interface OffLoopReads {
  run(sql: string, params: readonly unknown[]): Promise<Record<string, unknown>[]>;
  /** Their use now (for /metrics). */
  use(): ReadThreadUse;
  /** Fails the reads still waiting (503), stops the running ones and ends the threads. */
  close(): Promise<void>;
  /** The threads running now, for tests that stop one as if it had crashed. */
  threads(): { terminate(): Promise<number> }[];
}

/**
 * How far a replica has replayed the primary's changes, as positions in the primary's log (a PostgreSQL WAL LSN, a
 * MariaDB GTID list): read on the primary, then on each replica, then compared (docs/design/read-replicas.md).
 */
export interface ReplicationPositions {
  /** One row, column `position`: where the primary's log ends now. */
  readonly primarySql: string;
  /** One row, column `position`: how far this replica has replayed (null: the server is not a replica). */
  readonly replicaSql: string;
  /** The replica has replayed everything up to `primary` (both as the statements above answer them). */
  replayed(replica: unknown, primary: unknown): boolean;
}

export interface Dialect {
  readonly client: DbClient;
  /** Human name used in health checks and messages. */
  readonly label: string;
  /** The vendor as a Directus schema snapshot records it (`vendor`: sqlite, postgres, mysql). */
  readonly snapshotVendor: string;
  /**
   * knex configuration for this vendor (pool, driver options, the session's statement timeout, 0 = none; PostgreSQL:
   * the schemas of the search path).
   */
  knexConfig(connection: unknown, session: { statementTimeoutMs: number; searchPath: string[] }): Knex.Config;
  /** Session settings it cannot apply on this machine, as lines for the start-up log (after the first connection). */
  settingWarnings?(session: { statementTimeoutMs: number }): string[];
  /**
   * Runs one statement with bound parameters on a raw connection; returns rows as plain objects. `name` (a stable
   * name of this text) asks for a prepared statement kept by the connection, where the driver keeps them by name.
   */
  execute(
    connection: RawConnection,
    sql: string,
    params: readonly unknown[],
    name?: string,
  ): Promise<Record<string, unknown>[]>;
  /**
   * Where reads outside a transaction run off the event loop, or null when they run on the pool as any statement
   * (`threads` 0, or a database no other thread can open: SQLite in memory).
   */
  offLoopReads?(settings: { filename: string; threads: number; statementTimeoutMs: number }): OffLoopReads | null;
  /**
   * The database is files each process opens itself, tidied by the last connection to close (SQLite: it checkpoints
   * the WAL and removes -wal and -shm), which processes closing together can each miss (src/db/last-close.ts).
   */
  readonly tidiedByLastClose?: boolean;
  /** Every user and service_* table of the connected database/schema, with columns, keys and foreign keys. */
  introspect(knex: Knex): Promise<TableInfo[]>;
  /** Maps a column to its service type (Directus docs: Field types) when no meta special decides it. */
  mapType(column: ColumnInfo): ServiceType;
  /** SQL-compiler hooks: quoting, placeholders, JSON building, wire formats. */
  readonly sql: SqlDialect;
  /** Write hooks: transactions, parameter limits, value binding for INSERT/UPDATE. */
  readonly write: WriteDialect;
  /**
   * Its driver's error → its kind (connection, timeout, constraint, ...) and, for a failed write, what failed
   * (unique, foreign key, ...); null for an error that is not the driver's (src/db/failure-kind.ts adds the socket
   * and pool errors every driver shares).
   */
  classifyError(error: unknown): DriverErrorClass | null;
  /** DDL for schema changes (fields, collections, relations). */
  readonly ddl: SchemaDdl;
  /** Positions that tell how far a read replica is behind; absent: the database has no replicas Strata can use. */
  readonly replication?: ReplicationPositions;
}
