/** better-sqlite3 errors of failed writes → DatabaseFailure (extended result codes; `table.column` from the message). */
import { failure, type DatabaseFailure } from '../../../errors/database-failure.js';
import type { FailureKind } from '../../failure-kind.js';

interface SqliteError {
  code?: string;
  message: string;
}

/** `UNIQUE constraint failed: authors.email` → ['authors', 'email']; several columns → no column. */
function tableColumn(message: string): { table: string | null; column: string | null } {
  const match = /constraint failed: ([^.,\s]+)\.([^,\s]+)$/.exec(message);
  return match ? { table: match[1]!, column: match[2]! } : { table: null, column: null };
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
    case 'SQLITE_MISMATCH':
      return failure('invalid_value');
    default:
      return null;
  }
}

/** The file cannot be opened or read, or the connection was closed: the database is unavailable. */
export function sqliteFailureKind(error: unknown): FailureKind {
  const code = (error as { code?: unknown })?.code;
  if (
    typeof code === 'string' &&
    (code === 'SQLITE_CANTOPEN' || code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_IOERR'))
  )
    return 'connection';
  if (code === 'SQLITE_INTERRUPT') return 'timeout';
  if (error instanceof TypeError && /database connection is not open/.test(error.message)) return 'connection';
  return null;
}
