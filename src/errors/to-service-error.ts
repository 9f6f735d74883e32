/**
 * Any error as the catalogue error a client is answered with, for every front end (HTTP, GraphQL, the sockets, the
 * subscription hub, the CLI): catalogue errors as they are, a database that is away or too slow 503, anything else
 * 500 INTERNAL_SERVER_ERROR without detail (each front end logs those with their stack: see `isUnexpected`).
 */
import { InternalServerError, ServiceError } from './catalogue.js';
import { DatabaseError, databaseUnreachableError, statementTimeoutError } from './database-error.js';

export function toServiceError(error: unknown): ServiceError {
  if (error instanceof ServiceError) return error;
  if (error instanceof DatabaseError) {
    if (error.kind === 'connection') return databaseUnreachableError();
    if (error.kind === 'timeout') return statementTimeoutError();
  }
  return new InternalServerError();
}

/** Whether the error is one no catalogue code explains (a bug, or a database failure of no known kind): log it. */
export function isUnexpected(error: unknown): boolean {
  return !(error instanceof ServiceError) && toServiceError(error) instanceof InternalServerError;
}
