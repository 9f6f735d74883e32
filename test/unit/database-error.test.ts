/**
 * Driver errors classified by the dialect that raised them (plus the socket and pool errors every driver shares):
 * dead connections, statement timeouts, refused values and constraints. The shapes here are the drivers' rarer ones;
 * test/api/driver-errors.test.ts provokes the common ones on the real databases.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mysqlDialect } from '../../src/db/dialects/mysql/index.js';
import { postgresDialect } from '../../src/db/dialects/postgres/index.js';
import { sqliteDialect } from '../../src/db/dialects/sqlite/index.js';
import { classifyError, failureKind, raised, statementNeverSent } from '../../src/db/failure-kind.js';
import { InternalServerError, ServiceErrorList, ValueTooLongError } from '../../src/errors/catalogue.js';
import { DatabaseError } from '../../src/errors/database-error.js';
import { isUnexpected, toServiceError } from '../../src/errors/to-service-error.js';

const withProps = (message: string, props: Record<string, unknown>) => Object.assign(new Error(message), props);

describe('the PostgreSQL classifier', () => {
  const kind = (error: unknown) => failureKind(postgresDialect, error);
  it('reads SQLSTATEs and node-postgres messages', () => {
    assert.equal(
      kind(withProps('terminating connection due to administrator command', { code: '57P01' })),
      'connection',
    );
    assert.equal(kind(withProps('the database system is starting up', { code: '57P03' })), 'connection');
    assert.equal(kind(withProps('sorry, too many clients already', { code: '53300' })), 'connection');
    assert.equal(kind(withProps('connection failure', { code: '08006' })), 'connection');
    assert.equal(kind(new Error('Client has encountered a connection error and is not queryable')), 'connection');
    assert.equal(kind(new Error('Connection terminated unexpectedly')), 'connection');
    assert.equal(kind(withProps('canceling statement due to statement timeout', { code: '57014' })), 'timeout');
    assert.equal(kind(withProps('canceling statement due to user request', { code: '57014' })), 'unknown');
    assert.equal(
      kind(withProps('value "99999999999" is out of range for type integer', { code: '22003' })),
      'invalid_input',
    );
    assert.equal(kind(withProps('duplicate key', { code: '23505' })), 'constraint');
    assert.equal(kind(withProps('relation "x" does not exist', { code: '42P01' })), 'unknown');
  });

  it('keeps what failed for a refused write', () => {
    const error = classifyError(
      postgresDialect,
      withProps('duplicate key', { code: '23505', table: 'tags', detail: 'Key (name)=(x) already exists.' }),
    );
    assert.equal(error.kind, 'constraint');
    assert.deepEqual(
      { kind: error.failure?.kind, table: error.failure?.table, column: error.failure?.column },
      { kind: 'unique', table: 'tags', column: 'name' },
    );
    const tooLong = classifyError(
      postgresDialect,
      withProps('value too long for type character varying(20)', { code: '22001' }),
    );
    assert.equal(tooLong.kind, 'invalid_input');
    assert.equal(tooLong.failure?.kind, 'too_long');
  });
});

describe('the MySQL/MariaDB classifier', () => {
  const kind = (error: unknown) => failureKind(mysqlDialect, error);
  it('reads error numbers and mysql2 fatal errors', () => {
    assert.equal(
      kind(
        withProps('Connection lost: The server closed the connection.', {
          code: 'PROTOCOL_CONNECTION_LOST',
          fatal: true,
        }),
      ),
      'connection',
    );
    assert.equal(kind(withProps("Can't add new command when connection is in closed state", {})), 'connection');
    assert.equal(kind(withProps('Connection was killed', { errno: 1927 })), 'connection');
    assert.equal(kind(withProps('Server shutdown in progress', { errno: 1053 })), 'connection');
    assert.equal(
      kind(withProps('Query execution was interrupted (max_statement_time exceeded)', { errno: 1969 })),
      'timeout',
    );
    assert.equal(kind(withProps("Duplicate entry 'x' for key 'name'", { errno: 1062 })), 'constraint');
    assert.equal(kind(withProps("Data too long for column 'name' at row 1", { errno: 1406 })), 'invalid_input');
    assert.equal(kind(withProps("Table 'test.x' doesn't exist", { errno: 1146 })), 'unknown');
  });
});

describe('the SQLite classifier', () => {
  const kind = (error: unknown) => failureKind(sqliteDialect, error);
  it('reads result codes', () => {
    assert.equal(kind(withProps('unable to open database file', { code: 'SQLITE_CANTOPEN' })), 'connection');
    assert.equal(kind(withProps('disk I/O error', { code: 'SQLITE_IOERR_READ' })), 'connection');
    assert.equal(kind(new TypeError('The database connection is not open')), 'connection');
    assert.equal(kind(withProps('interrupted', { code: 'SQLITE_INTERRUPT' })), 'timeout');
    assert.equal(
      kind(withProps('UNIQUE constraint failed: tags.name', { code: 'SQLITE_CONSTRAINT_UNIQUE' })),
      'constraint',
    );
    assert.equal(kind(withProps('string or blob too big', { code: 'SQLITE_TOOBIG' })), 'invalid_input');
    assert.equal(kind(withProps('no such table: x', { code: 'SQLITE_ERROR' })), 'unknown');
  });
});

describe('errors every driver shares', () => {
  it('are connection failures under any dialect', () => {
    for (const dialect of [postgresDialect, mysqlDialect, sqliteDialect]) {
      assert.equal(
        failureKind(dialect, withProps('connect ECONNREFUSED 127.0.0.1:5432', { code: 'ECONNREFUSED' })),
        'connection',
      );
      assert.equal(
        failureKind(dialect, withProps('Knex: Timeout acquiring a connection.', { name: 'KnexTimeoutError' })),
        'connection',
      );
      assert.equal(failureKind(dialect, new Error('something else')), 'unknown');
      assert.equal(failureKind(dialect, 'not an error'), 'unknown');
    }
  });

  it('are classified once: a DatabaseError stays itself, a catalogue error leaves src/db as it is', () => {
    const once = classifyError(sqliteDialect, withProps('disk I/O error', { code: 'SQLITE_IOERR' }));
    assert.equal(classifyError(postgresDialect, once), once);
    const catalogue = new ValueTooLongError('tags', 'name');
    assert.equal(raised(postgresDialect, catalogue), catalogue);
    assert.ok(raised(postgresDialect, new Error('x')) instanceof DatabaseError);
  });
});

describe('statementNeverSent', () => {
  it('is true only when the driver refused the statement on a connection already closed', () => {
    const never = (dialect: typeof postgresDialect, error: unknown) => statementNeverSent(dialect, error);
    assert.equal(
      never(postgresDialect, new Error('Client has encountered a connection error and is not queryable')),
      true,
    );
    assert.equal(
      never(
        postgresDialect,
        new Error('update "service_users" set "status" = $1 - Client was closed and is not queryable'),
      ),
      true,
    );
    assert.equal(never(mysqlDialect, new Error("Can't add new command when connection is in closed state")), true);
    // Sent, then the connection died: the database may have run it.
    assert.equal(never(postgresDialect, new Error('Connection terminated unexpectedly')), false);
    assert.equal(
      never(
        mysqlDialect,
        withProps('Connection lost: The server closed the connection.', {
          code: 'PROTOCOL_CONNECTION_LOST',
          fatal: true,
        }),
      ),
      false,
    );
    assert.equal(
      never(postgresDialect, withProps('terminating connection due to administrator command', { code: '57P01' })),
      false,
    );
    assert.equal(never(postgresDialect, 'is not queryable'), false);
  });
});

describe('toServiceError', () => {
  it('answers catalogue errors as they are', () => {
    const error = new ValueTooLongError('tags', 'name');
    assert.equal(toServiceError(error), error);
    const list = new ServiceErrorList([error]);
    assert.equal(toServiceError(list), list);
    assert.equal(isUnexpected(error), false);
  });

  it('answers a database that is away or too slow 503, naming neither driver nor statement', () => {
    const away = toServiceError(
      classifyError(postgresDialect, withProps('connect ECONNREFUSED', { code: 'ECONNREFUSED' })),
    );
    assert.deepEqual(
      [away.status, away.code, away.message],
      [503, 'SERVICE_UNAVAILABLE', 'Service "database" is unavailable. The database is not reachable.'],
    );
    const slow = toServiceError(classifyError(mysqlDialect, withProps('max_statement_time exceeded', { errno: 1969 })));
    assert.deepEqual(
      [slow.status, slow.code, slow.message],
      [
        503,
        'SERVICE_UNAVAILABLE',
        'Service "database" is unavailable. The statement ran longer than DB_STATEMENT_TIMEOUT allows.',
      ],
    );
    assert.equal(
      isUnexpected(classifyError(sqliteDialect, withProps('interrupted', { code: 'SQLITE_INTERRUPT' }))),
      false,
    );
  });

  it('answers anything else 500 without detail, and calls it unexpected', () => {
    const secret = withProps('duplicate key value violates unique constraint "users_email_key"', { code: '23505' });
    for (const error of [new TypeError('x is undefined'), classifyError(postgresDialect, secret), 'a string', null]) {
      const answer = toServiceError(error);
      assert.ok(answer instanceof InternalServerError);
      assert.deepEqual(
        [answer.status, answer.code, answer.message, answer.extensions],
        [500, 'INTERNAL_SERVER_ERROR', 'An unexpected error occurred.', {}],
      );
      assert.equal(isUnexpected(error), true);
    }
  });
});
