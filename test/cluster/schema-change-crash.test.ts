/**
 * `POST /relations` on MariaDB, whose DDL commits statement by statement, with the Strata process killed (SIGKILL)
 * at a chosen point of the change: before its ALTER ran, between the ALTER and the commit of the relation's
 * metadata, and after the answer. The point is held by a lock this test takes on its own connection (the ALTER
 * waits for a metadata lock on the table, the metadata insert for a lock on service_relations), found in the
 * server's process list, and the process killed there. After a restart the relation is whole or absent: the
 * foreign key exists exactly when its service_relations row does. Before the change journal, the first two left a
 * foreign key without its row. Runs when TEST_MYSQL_URL is set.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import mysql from 'mysql2/promise';
import { createTestDatabase, type TestDb } from '../helpers/test-db.js';
import { StrataProcess } from '../helpers/strata-process.js';

const ADMIN_TOKEN = 'strata-crash-admin-token';
const enabled = Boolean(process.env.TEST_MYSQL_URL);

/** Polls `check` every 20 ms for at most 30 s. */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`Timed out waiting for ${what}`);
}

describe(
  'a relation created on MariaDB by a process killed half-way',
  { skip: enabled ? false : 'needs TEST_MYSQL_URL' },
  () => {
    let db: TestDb;
    let env: Record<string, string>;
    let strata: StrataProcess | undefined;
    /** The test's own connections: one holds locks, one watches. */
    let holder: mysql.Connection;
    let watcher: mysql.Connection;

    before(async () => {
      db = await createTestDatabase('mysql', { fixture: true });
      env = {
        ...db.env,
        SECRET: 'strata-crash-secret-0123456789abcdef',
        ADMIN_EMAIL: 'admin@example.com',
        ADMIN_PASSWORD: 'strata-crash-password',
        ADMIN_TOKEN,
        RATE_LIMITER_ENABLED: 'false',
        PRESSURE_LIMITER_ENABLED: 'false',
      };
      holder = await mysql.createConnection(db.env.DB_CONNECTION_STRING!);
      watcher = await mysql.createConnection(db.env.DB_CONNECTION_STRING!);
      for (const field of ['editor_a', 'editor_b', 'editor_c', 'editor_d', 'editor_e'])
        await watcher.query(`alter table articles add column ${field} int null`);
      strata = await StrataProcess.start(env);
    });
    after(async () => {
      await strata?.stop('SIGKILL');
      await holder?.end();
      await watcher?.end();
      await db?.drop();
    });

    const relate = (field: string) =>
      fetch(`${strata!.url}/relations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ collection: 'articles', field, related_collection: 'authors' }),
      });
    const foreignKey = async (field: string) => {
      const [rows] = await watcher.query(
        `select count(*) as n from information_schema.key_column_usage
        where table_schema = database() and table_name = 'articles' and column_name = ? and referenced_table_name is not null`,
        [field],
      );
      return Number((rows as { n: number }[])[0]!.n) > 0;
    };
    const metadata = async (field: string) => {
      const [rows] = await watcher.query(
        `select count(*) as n from service_relations where many_collection = 'articles' and many_field = ?`,
        [field],
      );
      return Number((rows as { n: number }[])[0]!.n) > 0;
    };
    /** A statement of another connection, waiting: `pattern` is a LIKE pattern of its text. */
    const waiting = async (pattern: string) => {
      const [rows] = await watcher.query(
        `select count(*) as n from information_schema.processlist where info like ? and state like 'Waiting%'`,
        [pattern],
      );
      return Number((rows as { n: number }[])[0]!.n) > 0;
    };
    const running = async (pattern: string) => {
      const [rows] = await watcher.query(
        `select count(*) as n from information_schema.processlist where info like ? and id <> connection_id()`,
        [pattern],
      );
      return Number((rows as { n: number }[])[0]!.n) > 0;
    };
    /** Kills the process, lets go of the lock, waits for the killed statement to end, and starts a new process. */
    const killAndRestart = async (release: string, pattern: string) => {
      await strata!.stop('SIGKILL');
      await holder.query(release);
      await until('the killed statement to end', async () => !(await running(pattern)));
      strata = await StrataProcess.start(env);
    };

    it('undoes the foreign key when the process dies before its ALTER ran', async () => {
      // A reader's open transaction holds a metadata lock on articles: the ALTER waits for it.
      await holder.query('start transaction');
      await holder.query('select id from articles limit 1');
      const request = relate('editor_a').catch(() => null);
      await until('the ALTER to wait', () => waiting('alter table `articles`%editor_a%'));
      await killAndRestart('commit', 'alter table `articles`%editor_a%');
      await request;
      assert.equal(await metadata('editor_a'), false);
      assert.equal(await foreignKey('editor_a'), false, 'the ALTER ran after the kill; the restart undid it');
    });

    it('undoes the foreign key when the process dies between the ALTER and the metadata', async () => {
      await holder.query('lock tables service_relations write');
      const request = relate('editor_b').catch(() => null);
      await until('the metadata insert to wait', () => waiting('insert into `service_relations`%editor_b%'));
      assert.equal(await foreignKey('editor_b'), true, 'the ALTER has run');
      await killAndRestart('unlock tables', 'insert into `service_relations`%editor_b%');
      await request;
      assert.equal(await metadata('editor_b'), false);
      assert.equal(await foreignKey('editor_b'), false, 'the foreign key went with the metadata');
      // The relation can be made again, whole.
      const again = await relate('editor_b');
      assert.equal(again.status, 200, await again.text());
      assert.ok((await foreignKey('editor_b')) && (await metadata('editor_b')));
    });

    it('undoes it at the next change of another instance that kept running', async () => {
      const other = await StrataProcess.start(env);
      try {
        await holder.query('lock tables service_relations write');
        const request = relate('editor_d').catch(() => null);
        await until('the metadata insert to wait', () => waiting('insert into `service_relations`%editor_d%'));
        await strata!.stop('SIGKILL');
        await holder.query('unlock tables');
        await request;
        await until(
          'the killed statement to end',
          async () => !(await running('insert into `service_relations`%editor_d%')),
        );
        assert.equal(await foreignKey('editor_d'), true, 'half-made until the next change');
        const next = await fetch(`${other.url}/relations`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ collection: 'articles', field: 'editor_e', related_collection: 'authors' }),
        });
        assert.equal(next.status, 200, await next.text());
        assert.equal(await foreignKey('editor_d'), false);
        assert.equal(await metadata('editor_d'), false);
        assert.ok((await foreignKey('editor_e')) && (await metadata('editor_e')));
        const gone = await fetch(`${other.url}/relations/articles/editor_d`, {
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        });
        assert.equal(gone.status, 403, 'the other instance no longer sees the relation');
      } finally {
        strata = await StrataProcess.start(env).finally(() => other.stop('SIGKILL'));
      }
    });

    it('keeps a relation whose change committed before the kill', async () => {
      const done = await relate('editor_c');
      assert.equal(done.status, 200, await done.text());
      await strata!.stop('SIGKILL');
      strata = await StrataProcess.start(env);
      assert.ok((await foreignKey('editor_c')) && (await metadata('editor_c')));
      const read = await fetch(`${strata.url}/relations/articles/editor_c`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      assert.equal(read.status, 200, await read.text());
    });
  },
);
