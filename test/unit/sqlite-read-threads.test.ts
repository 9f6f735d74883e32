/**
 * Database.query on SQLite with read threads, against a temp file: values come back as the inline driver gives them
 * (integers, reals, text, Buffers, null), driver errors keep their class and code, a statement run again after a
 * schema change sees the new schema, closing stops a running read at once (503), and an in-memory database or
 * DB_READ_THREADS=0 reads inline.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { readConfig } from '../../src/config/config.js';
import { Database, readThreads } from '../../src/db/connection.js';
import { failureKind } from '../../src/db/failure-kind.js';
import { ServiceUnavailableError } from '../../src/errors/catalogue.js';

const dir = mkdtempSync(path.join(tmpdir(), 'strata-read-threads-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Never ends by itself. */
const ENDLESS =
  'select count(*) as n from (with recursive c(x) as (select 1 union all select x + 1 from c) select x from c)';

function open(file: string, env: Record<string, string> = {}): Database {
  return new Database(readConfig({ DB_CLIENT: 'sqlite3', DB_FILENAME: file, LOG_LEVEL: 'silent', ...env }).db);
}

async function failure(run: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await run;
  } catch (error) {
    return error as Error & { code?: string };
  }
  assert.fail('expected a failure');
}

describe('SQLite read threads (Database.query)', () => {
  const file = path.join(dir, 'values.db');

  it('gives the values, errors and classifications the inline driver gives', async () => {
    const inline = open(file, { DB_READ_THREADS: '0' });
    const threaded = open(file, { DB_READ_THREADS: '2' });
    try {
      await inline.query('create table v (id integer primary key, i integer, big integer, r real, t text, b blob)');
      await inline.query('insert into v (i, big, r, t, b) values (?, ?, ?, ?, ?), (null, null, null, null, null)', [
        -42,
        9007199254740993n,
        1.25,
        'Unicode ✓ — 日本語',
        Buffer.from([0, 1, 2, 255]),
      ]);
      const reads: [string, unknown[]][] = [
        ['select * from v order by id', []],
        ['select * from v where b = ? or t = ?', [Buffer.from([0, 1, 2, 255]), 'none']],
        ['select count(*) as n, sum(i) as s, avg(r) as a, ? as flag from v', [true]],
        ["select json_group_array(json_object('id', id, 't', t)) as data from v", []],
        ['select * from v where 0', []],
      ];
      for (const [sql, params] of reads) {
        const expected = await inline.query(sql, params);
        const actual = await threaded.query(sql, params);
        assert.deepEqual(actual, expected, sql);
        for (const [k, row] of actual.entries())
          for (const key of Object.keys(row))
            assert.equal(Buffer.isBuffer(row[key]), Buffer.isBuffer(expected[k]![key]), `${sql}: ${key}`);
      }
      assert.ok(readThreads(threaded).length > 0, 'the reads ran on read threads');
      assert.equal(readThreads(inline).length, 0);

      for (const sql of ['select * from missing', 'select nope from v']) {
        const expected = await failure(inline.query(sql));
        const actual = await failure(threaded.query(sql));
        assert.equal(actual.code, expected.code, sql);
        assert.equal(actual.message, expected.message, sql);
        assert.equal(failureKind(threaded.dialect, actual), failureKind(inline.dialect, expected), sql);
      }
      const expected = await failure(inline.query('select * from v where id = ?', []));
      const actual = await failure(threaded.query('select * from v where id = ?', []));
      assert.equal(actual.constructor, expected.constructor);
      assert.equal(actual.message, expected.message);
    } finally {
      await threaded.close();
      await inline.close();
    }
  });

  it('runs a statement again against the schema of the moment', async () => {
    const db = open(path.join(dir, 'schema.db'), { DB_READ_THREADS: '1' });
    try {
      await db.query('create table s (id integer primary key)');
      await db.query('insert into s (id) values (1)');
      assert.deepEqual(await db.query('select * from s'), [{ id: 1 }]);
      await db.query("alter table s add column label text default 'x'");
      assert.deepEqual(await db.query('select * from s'), [{ id: 1, label: 'x' }]);
      await db.query('drop table s');
      await db.query('create table s (other text)');
      await db.query("insert into s (other) values ('y')");
      assert.deepEqual(await db.query('select * from s'), [{ other: 'y' }]);
    } finally {
      await db.close();
    }
  });

  it('times out a read alone, and closing stops a running read with 503', async () => {
    const db = open(path.join(dir, 'close.db'), { DB_READ_THREADS: '2', DB_STATEMENT_TIMEOUT: '200ms' });
    const timedOut = await failure(db.query(ENDLESS));
    assert.ok(timedOut instanceof ServiceUnavailableError, String(timedOut));
    assert.match(timedOut.message, /DB_STATEMENT_TIMEOUT/);
    await db.close();

    const endless = open(path.join(dir, 'close.db'), { DB_READ_THREADS: '2', DB_STATEMENT_TIMEOUT: '0' });
    const running = failure(endless.query(ENDLESS));
    await endless.query('select 1');
    // Without the interrupt, closing would wait for a statement that never ends.
    await endless.close();
    const error = await running;
    assert.ok(error instanceof ServiceUnavailableError, String(error));
    assert.ok((await failure(endless.query('select 1'))) instanceof ServiceUnavailableError);
  });

  it('reads inline from a database in memory', async () => {
    // Only a DbConfig made in code says ':memory:' (DB_FILENAME is resolved to a file path).
    const config = readConfig({ DB_CLIENT: 'sqlite3', DB_READ_THREADS: '2', LOG_LEVEL: 'silent' }).db;
    const db = new Database({ ...config, filename: ':memory:' });
    try {
      await db.query('create table m (id integer primary key)');
      await db.query('insert into m (id) values (3)');
      assert.deepEqual(await db.query('select * from m'), [{ id: 3 }]);
      assert.equal(readThreads(db).length, 0);
    } finally {
      await db.close();
    }
  });
});
