/**
 * node-postgres errors classified (DatabaseError's kinds) and, for failed writes, read into a DatabaseFailure
 * (SQLSTATE codes; the column from the error or its detail).
 */
import type { DatabaseErrorKind, DriverErrorClass } from '../../../errors/database-error.js';
import { failure, type DatabaseFailure } from '../../../errors/database-failure.js';
import { withShared } from '../shared-errors.js';

interface PgError {
  code?: string;
  table?: string;
  column?: string;
  constraint?: string;
  detail?: string;
  message: string;
}

/** `Key (email)=(ada@example.com) already exists.` → ['email', 'ada@example.com'] (single-column keys only). */
function keyDetail(detail: string | undefined): [string | null, string | null] {
  const match = /^Key \(([^,()]+)\)=\((.*)\) /s.exec(detail ?? '');
  return match ? [match[1]!.replace(/^"|"$/g, ''), match[2]!] : [null, null];
}

export function translatePostgresError(error: unknown): DatabaseFailure | null {
  const e = error as PgError;
  if (typeof e?.code !== 'string' || !/^[0-9A-Z]{5}$/.test(e.code)) return null;
  const table = e.table ?? null;
  switch (e.code) {
    case '23505': {
      const [column, value] = keyDetail(e.detail);
      return failure('unique', { table, column, value });
    }
    case '23503': {
      const [column] = keyDetail(e.detail);
      const referenced = /is still referenced from table/.test(e.detail ?? '');
      return failure('foreign_key', { table, column, referenced });
    }
    case '23502':
      return failure('not_null', { table, column: e.column ?? null });
    case '22001': {
      // `value too long for type character varying(20)`: no column, only the type's length.
      const length = /\((\d+)\)/.exec(e.message);
      return failure('too_long', { maxLength: length ? Number(length[1]) : null });
    }
    case '22003': {
      // `value "3000000000" is out of range for type integer`, or `integer out of range` / `numeric field overflow`.
      const value = /value "([^"]*)" is out of range/.exec(e.message);
      return failure('out_of_range', { value: value ? value[1]! : null });
    }
    case '428C9':
      // `cannot insert a non-DEFAULT value into column "id"` (GENERATED ALWAYS identity).
      return failure('read_only', { table, column: /column "([^"]+)"/.exec(e.message)?.[1] ?? null });
    case '23514':
      // `new row for relation "t" violates check constraint "t_level_check"`: the constraint, not the column.
      return failure('check', {
        table,
        constraint: e.constraint ?? /check constraint "([^"]+)"/.exec(e.message)?.[1] ?? null,
      });
    case '22P02':
    case '22007':
    case '22008':
    case '22023':
    case '22025':
    case '2202E':
    case '22021': {
      // `invalid input syntax for type integer: "abc"`: the value, from which the field is found.
      const value = /: "(.*)"$/.exec(e.message);
      return failure('invalid_value', { table, column: e.column ?? null, value: value ? value[1]! : null });
    }
    default:
      return null;
  }
}

/**
 * Failures that are not the statement's fault: the connection died or the server is going away (class 08,
 * admin/crash shutdown, too many connections, and node-postgres's own messages for a dead client), a statement
 * cancelled by `statement_timeout`, and values the server could not take for their type (class 22, data exceptions:
 * a read never writes, so such a value is the query's fault).
 */
function postgresKind(error: unknown): DatabaseErrorKind | null {
  const e = error as PgError;
  if (typeof e?.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) {
    if (e.code.startsWith('08') || ['57P01', '57P02', '57P03', '53300'].includes(e.code)) return 'connection';
    if (e.code === '57014' && /statement timeout/i.test(e.message)) return 'timeout';
    if (e.code.startsWith('22')) return 'invalid_input';
    if (e.code.startsWith('23') || e.code === '428C9') return 'constraint';
    return 'unknown';
  }
  if (
    e instanceof Error &&
    /Connection terminated|is not queryable|connection error|Client was closed/i.test(e.message)
  )
    return 'connection';
  return null;
}

/** A node-postgres error as DatabaseError's kind and details; null for an error that is not the driver's. */
export function classifyPostgresError(error: unknown): DriverErrorClass | null {
  const kind = postgresKind(error);
  return withShared(
    error,
    kind && {
      kind,
      failure: translatePostgresError(error),
      // node-postgres refuses a query on a client whose connection already ended, without sending it.
      neverSent: kind === 'connection' && /is not queryable/.test((error as Error).message),
    },
  );
}
