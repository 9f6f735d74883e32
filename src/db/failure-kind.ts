/**
 * A driver's error as the one DatabaseError that leaves src/db. The errors of sockets and pools look alike under
 * every driver and are read here; everything else is read by the dialect that raised it (its error-translation.ts),
 * which the caller passes in: no file but the dialect registry knows every dialect.
 */
import { ServiceError } from '../errors/catalogue.js';
import { DatabaseError, type DatabaseErrorKind } from '../errors/database-error.js';
import type { Dialect } from './dialect.js';

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

type Classifier = Pick<Dialect, 'classifyError'>;

function networkFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  if (code && NETWORK_CODES.has(code)) return true;
  if (error.name === 'KnexTimeoutError') return true;
  // knex after destroy(), and pools that cannot hand out a connection.
  return (
    /Unable to acquire a connection|aborted|pool is (probably )?(full|destroyed)/i.test(error.message) &&
    !(error as { sqlState?: unknown }).sqlState
  );
}

/** The error as a DatabaseError (one already is stays as it is). */
export function classifyError(dialect: Classifier, error: unknown): DatabaseError {
  if (error instanceof DatabaseError) return error;
  const own = dialect.classifyError(error);
  const kind = networkFailure(error) ? 'connection' : (own?.kind ?? 'unknown');
  return new DatabaseError({ kind, failure: own?.failure ?? null, neverSent: own?.neverSent ?? false }, error);
}

export function failureKind(dialect: Classifier, error: unknown): DatabaseErrorKind {
  return classifyError(dialect, error).kind;
}

/** The driver refused the statement without sending it (see DriverErrorClass.neverSent). */
export function statementNeverSent(dialect: Classifier, error: unknown): boolean {
  return classifyError(dialect, error).neverSent;
}

/** An error as it leaves src/db: a catalogue error as it is, anything a driver (or knex) threw as a DatabaseError. */
export function raised(dialect: Classifier, error: unknown): ServiceError | DatabaseError {
  return error instanceof ServiceError ? error : classifyError(dialect, error);
}
