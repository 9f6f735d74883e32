/**
 * The one error a driver's failure leaves src/db as: what kind of failure it was, as the dialect that raised it read
 * its driver's codes (src/db/dialects/<vendor>/error-translation.ts), plus the details the catalogue needs for a
 * refused write. The driver's error is its `cause`, for the logs only: its text never reaches a client.
 */
import type { DatabaseFailure } from './database-failure.js';
import { ServiceUnavailableError } from './catalogue.js';

/**
 * `connection`: the database could not be reached or the connection died (503, retried where nothing can have
 * run); `timeout`: the statement ran longer than DB_STATEMENT_TIMEOUT (503); `invalid_input`: a value the database
 * could not take for its column's type (400 INVALID_QUERY on a read; on a write the catalogue error of `failure`);
 * `constraint`: a unique, foreign-key, not-null or check constraint refused a write (`failure` says which);
 * `unknown`: anything else (500, logged).
 */
export type DatabaseErrorKind = 'connection' | 'timeout' | 'invalid_input' | 'constraint' | 'unknown';

/** What a dialect reads from one of its driver's errors. */
export interface DriverErrorClass {
  kind: DatabaseErrorKind;
  /** For a refused write: what failed and the table, column and value the driver names. */
  failure?: DatabaseFailure | null;
  /**
   * The driver refused the statement without sending it (its connection was found closed): even a write can run
   * again on a fresh connection. A failure after sending is not this: its outcome is unknown.
   */
  neverSent?: boolean;
  /** No connection was free before the pool's acquire timeout (not a connection that failed: not worth a retry). */
  poolTimeout?: boolean;
}

export class DatabaseError extends Error {
  override readonly name = 'DatabaseError';
  readonly kind: DatabaseErrorKind;
  readonly failure: DatabaseFailure | null;
  readonly neverSent: boolean;
  readonly poolTimeout: boolean;

  constructor(found: DriverErrorClass, cause: unknown) {
    super(`Database error (${found.kind})`, { cause });
    this.kind = found.kind;
    this.failure = found.failure ?? null;
    this.neverSent = found.neverSent ?? false;
    this.poolTimeout = found.poolTimeout ?? false;
  }
}

export function databaseUnreachableError(): ServiceUnavailableError {
  return new ServiceUnavailableError('database', 'The database is not reachable');
}

export function statementTimeoutError(): ServiceUnavailableError {
  return new ServiceUnavailableError('database', 'The statement ran longer than DB_STATEMENT_TIMEOUT allows');
}
