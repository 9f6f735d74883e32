/**
 * How the repositories run their statements: one query-builder statement on a pooled connection, through
 * `Database.onPooledConnection`, so a lookup of the service_* tables is classified (503 SERVICE_UNAVAILABLE) and
 * retried exactly like the engine's statements.
 */
import type { Knex } from 'knex';
import { queryBuilder, type Database } from '../connection.js';
import { raised } from '../failure-kind.js';

/** A read: run again on a fresh connection when its connection dies under it. */
export function read<T>(db: Database, build: (knex: Knex) => Knex.QueryBuilder): Promise<T> {
  return db.onPooledConnection(
    true,
    (connection) => build(queryBuilder(db)).connection(connection as never) as unknown as Promise<T>,
  );
}

/** A write: run again only when it never reached the database (its outcome is otherwise unknown). */
export function write<T>(db: Database, build: (knex: Knex) => Knex.QueryBuilder): Promise<T> {
  return db.onPooledConnection(
    false,
    (connection) => build(queryBuilder(db)).connection(connection as never) as unknown as Promise<T>,
  );
}

/**
 * Several statements in one transaction (knex's: begun, committed or rolled back on a connection of its own); a
 * driver's error leaves as a DatabaseError.
 */
export function transaction<T>(db: Database, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return queryBuilder(db)
    .transaction(work)
    .catch((error: unknown) => {
      throw raised(db.dialect, error);
    });
}
