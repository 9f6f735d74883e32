/**
 * What a failed statement says about the database rather than about the statement: classified once, here, for
 * every driver (each dialect reads its own driver's codes; their errors never look like one another's).
 */
import { mysqlFailureKind, mysqlNeverSent } from './dialects/mysql/error-translation.js';
import { postgresFailureKind, postgresNeverSent } from './dialects/postgres/error-translation.js';
import { sqliteFailureKind } from './dialects/sqlite/error-translation.js';

/**
 * `connection`: the database could not be reached or the connection died (503, retried where nothing can have
 * run); `timeout`: the statement ran longer than DB_STATEMENT_TIMEOUT (503); `invalid_input`: a value the database
 * could not take for its column's type, on a read (400 INVALID_QUERY).
 */
export type FailureKind = 'connection' | 'timeout' | 'invalid_input' | null;

/** Errors of the sockets and pools under every driver. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'EPIPE',
  'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST',
]);

export function failureKind(error: unknown): FailureKind {
  if (!(error instanceof Error)) return null;
  const code = (error as NodeJS.ErrnoException).code;
  if (code && NETWORK_CODES.has(code)) return 'connection';
  if (error.name === 'KnexTimeoutError') return 'connection';
  // knex after destroy(), and pools that cannot hand out a connection.
  if (
    /Unable to acquire a connection|aborted|pool is (probably )?(full|destroyed)/i.test(error.message) &&
    !(error as { sqlState?: unknown }).sqlState
  )
    return 'connection';
  return postgresFailureKind(error) ?? mysqlFailureKind(error) ?? sqliteFailureKind(error);
}

/**
 * A connection failure that the driver raised before writing the statement to the socket (the connection was found
 * closed): the database never saw it, so even a write can run again on a fresh connection. A failure after sending
 * is not this, whatever the statement was: its outcome is unknown.
 */
export function statementNeverSent(error: unknown): boolean {
  return error instanceof Error && (postgresNeverSent(error) || mysqlNeverSent(error));
}
