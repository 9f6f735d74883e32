/**
 * better-sqlite3 errors classified (DatabaseError's kinds) and, for failed writes, read into a DatabaseFailure
 * (extended result codes; `table.column` from the message).
 */
import type { DatabaseErrorKind, DriverErrorClass } from '../../../errors/database-error.js';
import { failure, type DatabaseFailure } from '../../../errors/database-failure.js';
import { withShared } from '../shared-errors.js';

interface SqliteError {
  code?: string;
  message: string;
}

/** `UNIQUE constraint failed: authors.email` → ['authors', 'email']; several columns → no column. */
function tableColumn(message: string): { table: string | null; column: string | null } {
  const match = /constraint failed: ([^.,\s]+)\.([^,\s]+)$/.exec(message);
  return match ? { table: match[1]!, column: match[2]! } : { table: null, column: null };
}

/**
 * `CHECK constraint failed: gauges_range` (a named constraint) or `CHECK constraint failed: level >= 0` (an unnamed
 * one's expression: its identifiers, from which the field is found).
 */
function checkFailure(message: string): DatabaseFailure {
  const text = /CHECK constraint failed: (.*)$/s.exec(message)?.[1]?.trim() ?? '';
  if (/^[A-Za-z_][A-Za-z0-9_$]*$/.test(text)) return failure('check', { constraint: text });
  const names = [
    ...text
      .replace(/'(?:[^']|'')*'/g, ' ')
      .matchAll(/"((?:[^"]|"")+)"|`([^`]+)`|\[([^\]]+)\]|([A-Za-z_][A-Za-z0-9_$]*)/g),
  ].map((m) => (m[1]?.replace(/""/g, '"') ?? m[2] ?? m[3] ?? m[4])!);
  return failure('check', { checkNames: names });
}

export function translateSqliteError(error: unknown): DatabaseFailure | null {
  const e = error as SqliteError;
  if (typeof e?.code !== 'string' || !e.code.startsWith('SQLITE_')) return null;
  // RESTRICT actions fail as SQLITE_CONSTRAINT_TRIGGER with the foreign-key message.
  if (e.code.startsWith('SQLITE_CONSTRAINT') && e.message.startsWith('FOREIGN KEY constraint failed'))
    return failure('foreign_key');
  switch (e.code) {
    case 'SQLITE_CONSTRAINT_UNIQUE':
    case 'SQLITE_CONSTRAINT_PRIMARYKEY':
      return failure('unique', tableColumn(e.message));
    case 'SQLITE_CONSTRAINT_NOTNULL':
      return failure('not_null', tableColumn(e.message));
    case 'SQLITE_CONSTRAINT_FOREIGNKEY':
      // SQLite names neither the table nor the column; the executor finds the field from the written values.
      return failure('foreign_key');
    case 'SQLITE_TOOBIG':
      return failure('too_long');
    case 'SQLITE_CONSTRAINT_CHECK':
      return checkFailure(e.message);
    case 'SQLITE_MISMATCH':
      return failure('invalid_value');
    default:
      return null;
  }
}

/** The file cannot be opened or read, or the connection was closed: the database is unavailable. */
function sqliteKind(error: unknown, failed: DatabaseFailure | null): DatabaseErrorKind | null {
  const code = (error as { code?: unknown })?.code;
  if (
    typeof code === 'string' &&
    (code === 'SQLITE_CANTOPEN' || code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_IOERR'))
  )
    return 'connection';
  if (code === 'SQLITE_INTERRUPT') return 'timeout';
  if (error instanceof TypeError && /database connection is not open/.test(error.message)) return 'connection';
  if (failed) return failed.kind === 'too_long' || code === 'SQLITE_MISMATCH' ? 'invalid_input' : 'constraint';
  return typeof code === 'string' && code.startsWith('SQLITE_') ? 'unknown' : null;
}

/** A better-sqlite3 error as DatabaseError's kind and details; null for an error that is not the driver's. */
export function classifySqliteError(error: unknown): DriverErrorClass | null {
  const failed = translateSqliteError(error);
  const kind = sqliteKind(error, failed);
  return withShared(error, kind && { kind, failure: failed });
}
