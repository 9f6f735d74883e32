/**
 * Each dialect's classifier on its driver's real errors, provoked on the real databases: a refused write leaves
 * src/db as a DatabaseError saying what failed, a read's bad value as 400 INVALID_QUERY, a statement over its time
 * and a database that is not there as 503 (test/unit/database-error.test.ts has the rarer shapes).
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Database } from '../../src/db/connection.js';
import { classifyError } from '../../src/db/failure-kind.js';
import { InvalidQueryError, ServiceError } from '../../src/errors/catalogue.js';
import { DatabaseError } from '../../src/errors/database-error.js';
import { toServiceError } from '../../src/errors/to-service-error.js';
import { clientLabel, createTestDatabase, knexFor, testClients, type TestDb } from '../helpers/test-db.js';

/** A statement that runs for seconds (well past the 100 ms statement timeout of these tests) on each database. */
const SLOW = {
  pg: 'select pg_sleep(5)',
  mysql: 'select sleep(5) as n',
  sqlite3: 'with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) as n from c',
} as const;

async function rejection(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    () => assert.fail('the statement did not fail'),
    (error: unknown) => error,
  );
}

for (const client of testClients()) {
  describe(`driver errors (${clientLabel(client)})`, () => {
    let testDb: TestDb;
    let db: Database;
    before(async () => {
      testDb = await createTestDatabase(client);
      db = new Database({ ...testDb.config, statementTimeoutMs: 100 });
      await db.query('create table parents (id integer primary key)');
      await db.query(
        'create table kids (id integer primary key, name varchar(5) not null unique, parent integer, ' +
          'foreign key (parent) references parents (id))',
      );
      await db.query('insert into parents (id) values (1)');
      await db.query(`insert into kids (id, name, parent) values (1, 'ada', 1)`);
    });
    after(async () => {
      await db?.close();
      await testDb?.drop();
    });

    /** A write in a transaction, as the writer runs it: what leaves src/db. */
    const refused = async (sql: string) => {
      const error = await rejection(db.transaction((tx) => tx.query(sql)));
      assert.ok(error instanceof DatabaseError, `not a DatabaseError: ${String(error)}`);
      assert.equal(toServiceError(error).code, 'INTERNAL_SERVER_ERROR', 'no detail without a collection to name');
      return { kind: error.kind, failure: error.failure?.kind, column: error.failure?.column ?? null };
    };

    it('a duplicate is a unique constraint (naming the column where the driver does)', async () => {
      const found = await refused(`insert into kids (id, name) values (2, 'ada')`);
      assert.deepEqual([found.kind, found.failure], ['constraint', 'unique']);
      if (client !== 'mysql') assert.equal(found.column, 'name');
      // The same driver error, caught from the driver under knex rather than Strata's own path.
      const raw = knexFor(testDb);
      try {
        const error = await rejection(raw.raw(`insert into kids (id, name) values (3, 'ada')`));
        const classified = classifyError(db.dialect, error);
        assert.deepEqual([classified.kind, classified.failure?.kind], ['constraint', 'unique']);
      } finally {
        await raw.destroy();
      }
    });

    it('a missing value is a not-null constraint', async () => {
      const found = await refused('insert into kids (id, name) values (4, null)');
      assert.deepEqual([found.kind, found.failure, found.column], ['constraint', 'not_null', 'name']);
    });

    it('a reference to nothing is a foreign-key constraint', async () => {
      const found = await refused(`insert into kids (id, name, parent) values (5, 'bo', 99)`);
      assert.deepEqual([found.kind, found.failure], ['constraint', 'foreign_key']);
    });

    it('a row still referenced is a foreign-key constraint', async () => {
      const found = await refused('delete from parents where id = 1');
      assert.deepEqual([found.kind, found.failure], ['constraint', 'foreign_key']);
    });

    if (client !== 'sqlite3') {
      // SQLite keeps any length in a varchar.
      it('a value too long for its column is invalid input', async () => {
        const found = await refused(`insert into kids (id, name) values (6, 'much too long')`);
        assert.deepEqual([found.kind, found.failure], ['invalid_input', 'too_long']);
      });
    }

    if (client === 'pg') {
      it("a read's value the database cannot take is 400 INVALID_QUERY", async () => {
        const error = await rejection(db.query('select * from kids where id = $1', ['abc']));
        assert.ok(error instanceof InvalidQueryError);
      });
    }

    it('an unknown table is neither a constraint nor the database being away: 500 without detail', async () => {
      const error = await rejection(db.transaction((tx) => tx.query('insert into nowhere (id) values (1)')));
      assert.ok(error instanceof DatabaseError);
      assert.equal(error.kind, 'unknown');
      assert.equal(toServiceError(error).status, 500);
    });

    it('a statement over DB_STATEMENT_TIMEOUT is 503', async () => {
      const error = await rejection(db.query(SLOW[client]));
      assert.ok(error instanceof ServiceError);
      assert.deepEqual(
        [error.status, error.code, error.extensions.reason],
        [503, 'SERVICE_UNAVAILABLE', 'The statement ran longer than DB_STATEMENT_TIMEOUT allows'],
      );
    });

    it('a database that is not there is 503, not reachable', async () => {
      const away =
        client === 'sqlite3'
          ? new Database({ ...testDb.config, filename: mkdtempSync(path.join(tmpdir(), 'strata-away-')) })
          : new Database({ ...testDb.config, connectionString: awayUrl(testDb.config.connectionString!) });
      try {
        const error = await rejection(away.query('select 1 as one'));
        assert.ok(error instanceof ServiceError, `not a catalogue error: ${String(error)}`);
        assert.deepEqual([error.status, error.extensions.reason], [503, 'The database is not reachable']);
      } finally {
        await away.close();
      }
    });
  });
}

/** The same server URL on a port nothing listens on. */
function awayUrl(connectionString: string): string {
  const url = new URL(connectionString);
  url.port = '1';
  return url.toString();
}
