/**
 * A driver's error as the one DatabaseError that leaves src/db, read by the dialect that raised it (its
 * error-translation.ts, after the errors all drivers share: dialects/shared-errors.ts), which the caller passes in:
 * no file but the dialect registry knows every dialect, and none outside src/db/dialects reads a driver's codes.
 */
import { ServiceError } from '../errors/catalogue.js';
import { DatabaseError, type DatabaseErrorKind } from '../errors/database-error.js';
import type { Dialect } from './dialect.js';

type Classifier = Pick<Dialect, 'classifyError'>;

/** The error as a DatabaseError (one already is stays as it is). */
export function classifyError(dialect: Classifier, error: unknown): DatabaseError {
  if (error instanceof DatabaseError) return error;
  return new DatabaseError(dialect.classifyError(error) ?? { kind: 'unknown' }, error);
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
