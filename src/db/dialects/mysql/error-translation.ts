/**
 * mysql2 errors classified (DatabaseError's kinds) and, for failed writes, read into a DatabaseFailure (MySQL and
 * MariaDB error numbers).
 */
import type { DatabaseErrorKind, DriverErrorClass } from '../../../errors/database-error.js';
import { failure, type DatabaseFailure } from '../../../errors/database-failure.js';
import { withShared } from '../shared-errors.js';

interface MysqlError {
  errno?: number;
  sqlMessage?: string;
  message: string;
}

/** The column quoted as `column 'x'` or `Column 'x'` or `Field 'x'`. */
function quotedColumn(message: string): string | null {
  return /(?:column|Field) '([^']+)'/i.exec(message)?.[1] ?? null;
}

/** `(`db`.`articles`, CONSTRAINT `c` FOREIGN KEY (`author`) REFERENCES `authors` (`id`)` → the table and column. */
function foreignKeyParts(message: string): {
  table: string | null;
  column: string | null;
  referencedColumn: string | null;
} {
  const match =
    /\(`[^`]*`\.`([^`]+)`, CONSTRAINT `[^`]*` FOREIGN KEY \(`([^`]+)`\) REFERENCES `[^`]+` \(`([^`]+)`\)/.exec(message);
  return { table: match?.[1] ?? null, column: match?.[2] ?? null, referencedColumn: match?.[3] ?? null };
}

export function translateMysqlError(error: unknown): DatabaseFailure | null {
  const e = error as MysqlError;
  if (typeof e?.errno !== 'number') return null;
  const message = e.sqlMessage ?? e.message;
  switch (e.errno) {
    case 1062: {
      // `Duplicate entry 'x' for key 'email'` (MySQL 8 writes 'table.key'); the key name is an index, not a column.
      const match = /Duplicate entry '(.*)' for key '([^']+)'/s.exec(message);
      return failure('unique', { value: match?.[1] ?? null });
    }
    case 1452:
    case 1216: {
      const parts = foreignKeyParts(message);
      return failure('foreign_key', { table: parts.table, column: parts.column });
    }
    case 1451:
    case 1217: {
      const parts = foreignKeyParts(message);
      return failure('foreign_key', { column: parts.referencedColumn, referenced: true });
    }
    case 1048:
    case 1263:
    case 1364:
      return failure('not_null', { column: quotedColumn(message) });
    case 3105:
      // `The value specified for generated column 'total' in table 't' is not allowed`.
      return failure('read_only', { column: quotedColumn(message) });
    case 1406:
      return failure('too_long', { column: quotedColumn(message) });
    case 1264:
    case 1690:
      return failure('out_of_range', { column: quotedColumn(message) });
    case 1265:
    case 1367:
    case 1416:
    case 1366:
    case 1292:
    case 1411:
    case 3140:
      return failure('invalid_value', { column: quotedColumn(message) });
    case 4025:
    case 3819:
      // MariaDB `CONSTRAINT `level` failed for `db`.`t`` (a column's own check is named after it); MySQL
      // `Check constraint 't_chk_1' is violated.`
      return failure('check', {
        constraint:
          /CONSTRAINT `([^`]+)` failed/.exec(message)?.[1] ?? /constraint '([^']+)'/i.exec(message)?.[1] ?? null,
      });
    default:
      return null;
  }
}

/** Connections the server ended or lost (MySQL and MariaDB numbers, mysql2's fatal errors), and statement timeouts. */
const CONNECTION_ERRNOS = new Set([1040, 1053, 1077, 1152, 1158, 1159, 1160, 1161, 1927, 2002, 2003, 2006, 2013, 4031]);
const TIMEOUT_ERRNOS = new Set([1969, 3024]);

function mysqlKind(error: unknown, failed: DatabaseFailure | null): DatabaseErrorKind | null {
  const e = error as MysqlError & { fatal?: boolean; code?: string };
  if (typeof e?.errno === 'number') {
    if (TIMEOUT_ERRNOS.has(e.errno)) return 'timeout';
    if (CONNECTION_ERRNOS.has(e.errno)) return 'connection';
  }
  if (e?.code === 'PROTOCOL_CONNECTION_LOST' || e?.code === 'PROTOCOL_SEQUENCE_TIMEOUT') return 'connection';
  if (
    e instanceof Error &&
    ((e as { fatal?: boolean }).fatal === true || /closed state|Connection lost/i.test(e.message))
  )
    return 'connection';
  if (failed) return VALUE_FAILURES.has(failed.kind) ? 'invalid_input' : 'constraint';
  return typeof (error as MysqlError)?.errno === 'number' ? 'unknown' : null;
}

/** Failures of a value that does not fit its column's type (rather than of a constraint). */
const VALUE_FAILURES = new Set<DatabaseFailure['kind']>(['too_long', 'out_of_range', 'invalid_value']);

/** A mysql2 error as DatabaseError's kind and details; null for an error that is not the driver's. */
export function classifyMysqlError(error: unknown): DriverErrorClass | null {
  const failed = translateMysqlError(error);
  const kind = mysqlKind(error, failed);
  return withShared(
    error,
    kind && {
      kind,
      failure: failed,
      // mysql2 refuses a command on a connection already closed, without sending it.
      neverSent:
        kind === 'connection' &&
        /Can't add new command when connection is in closed state/.test((error as Error).message),
    },
  );
}
