/** Driver errors classified once for every dialect: dead connections, statement timeouts, refused values. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { failureKind, statementNeverSent } from '../../src/db/failure-kind.js';

const withProps = (message: string, props: Record<string, unknown>) => Object.assign(new Error(message), props);

describe('failureKind', () => {
  it('reads PostgreSQL SQLSTATEs and node-postgres messages', () => {
    assert.equal(
      failureKind(withProps('terminating connection due to administrator command', { code: '57P01' })),
      'connection',
    );
    assert.equal(failureKind(withProps('the database system is starting up', { code: '57P03' })), 'connection');
    assert.equal(failureKind(withProps('sorry, too many clients already', { code: '53300' })), 'connection');
    assert.equal(failureKind(withProps('connection failure', { code: '08006' })), 'connection');
    assert.equal(
      failureKind(new Error('Client has encountered a connection error and is not queryable')),
      'connection',
    );
    assert.equal(failureKind(new Error('Connection terminated unexpectedly')), 'connection');
    assert.equal(failureKind(withProps('canceling statement due to statement timeout', { code: '57014' })), 'timeout');
    assert.equal(failureKind(withProps('canceling statement due to user request', { code: '57014' })), null);
    assert.equal(
      failureKind(withProps('value "99999999999" is out of range for type integer', { code: '22003' })),
      'invalid_input',
    );
    assert.equal(failureKind(withProps('duplicate key', { code: '23505' })), null);
  });

  it('reads MySQL/MariaDB error numbers and mysql2 fatal errors', () => {
    assert.equal(
      failureKind(
        withProps('Connection lost: The server closed the connection.', {
          code: 'PROTOCOL_CONNECTION_LOST',
          fatal: true,
        }),
      ),
      'connection',
    );
    assert.equal(failureKind(withProps("Can't add new command when connection is in closed state", {})), 'connection');
    assert.equal(failureKind(withProps('Connection was killed', { errno: 1927 })), 'connection');
    assert.equal(failureKind(withProps('Server shutdown in progress', { errno: 1053 })), 'connection');
    assert.equal(
      failureKind(withProps('Query execution was interrupted (max_statement_time exceeded)', { errno: 1969 })),
      'timeout',
    );
    assert.equal(failureKind(withProps("Duplicate entry 'x'", { errno: 1062 })), null);
  });

  it('reads SQLite codes and the network errors under every driver', () => {
    assert.equal(failureKind(withProps('unable to open database file', { code: 'SQLITE_CANTOPEN' })), 'connection');
    assert.equal(failureKind(withProps('disk I/O error', { code: 'SQLITE_IOERR_READ' })), 'connection');
    assert.equal(failureKind(new TypeError('The database connection is not open')), 'connection');
    assert.equal(
      failureKind(withProps('UNIQUE constraint failed: tags.name', { code: 'SQLITE_CONSTRAINT_UNIQUE' })),
      null,
    );
    assert.equal(failureKind(withProps('connect ECONNREFUSED 127.0.0.1:5432', { code: 'ECONNREFUSED' })), 'connection');
    assert.equal(
      failureKind(withProps('Knex: Timeout acquiring a connection.', { name: 'KnexTimeoutError' })),
      'connection',
    );
    assert.equal(failureKind(new Error('something else')), null);
    assert.equal(failureKind('not an error'), null);
  });
});

describe('statementNeverSent', () => {
  it('is true only when the driver refused the statement on a connection already closed', () => {
    assert.equal(statementNeverSent(new Error('Client has encountered a connection error and is not queryable')), true);
    assert.equal(
      statementNeverSent(
        new Error('update "service_users" set "status" = $1 - Client was closed and is not queryable'),
      ),
      true,
    );
    assert.equal(statementNeverSent(new Error("Can't add new command when connection is in closed state")), true);
    // Sent, then the connection died: the database may have run it.
    assert.equal(statementNeverSent(new Error('Connection terminated unexpectedly')), false);
    assert.equal(
      statementNeverSent(
        withProps('Connection lost: The server closed the connection.', {
          code: 'PROTOCOL_CONNECTION_LOST',
          fatal: true,
        }),
      ),
      false,
    );
    assert.equal(
      statementNeverSent(withProps('terminating connection due to administrator command', { code: '57P01' })),
      false,
    );
    assert.equal(statementNeverSent('is not queryable'), false);
  });
});
