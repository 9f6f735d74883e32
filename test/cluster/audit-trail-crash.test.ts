/**
 * A kill -9 during a large write leaves activity, revisions and data in agreement, on every database: a real Strata
 * process receives a 20,000-item create into a collection with `accountability: all` and is killed (SIGKILL) while
 * the write runs; after a restart the items are all there with one activity and one revision each, or none of them
 * and no trail. On PostgreSQL and MariaDB the kill comes while a statement of the trail (service_activity or
 * service_revisions) runs, seen in the server's list of statements: the items' INSERT has run, nothing has committed,
 * so nothing may be left. SQLite has no such list: the kill comes once the write-ahead log has grown by the write's
 * pages (or the answer came first), and the items must then be all or none.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, describe, it } from 'node:test';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { StrataProcess } from '../helpers/strata-process.js';
import { clientLabel, createTestDatabase, testClients, type TestDb } from '../helpers/test-db.js';

const ADMIN_TOKEN = 'strata-trail-crash-admin-token';
const ITEMS = 20_000;
const COLLECTION = 'crash_items';
/** A statement of the trail, as the server lists it. */
const TRAIL_STATEMENT = /(insert into|from) [`"]?(service_activity|service_revisions)/i;

/** Polls `check` every 5 ms until it is true or `stop` settles; whether `check` was true. */
async function waitFor(check: () => Promise<boolean>, stop: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void stop.finally(() => (settled = true));
  while (!settled) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return false;
}

/** Whether a statement of the trail is running on the database, from the server's own list (null: no such list). */
function trailWatcher(db: TestDb): { running: () => Promise<boolean>; close: () => Promise<void> } | null {
  if (db.client === 'pg') {
    const client = new pg.Client({ connectionString: db.env.DB_CONNECTION_STRING });
    const connected = client.connect();
    return {
      running: async () => {
        await connected;
        const { rows } = await client.query(
          `select query from pg_stat_activity
            where datname = current_database() and pid <> pg_backend_pid() and state = 'active'`,
        );
        return rows.some((row: { query: string }) => TRAIL_STATEMENT.test(row.query));
      },
      close: () => client.end(),
    };
  }
  if (db.client === 'mysql') {
    const connection = mysql.createConnection(db.env.DB_CONNECTION_STRING!);
    return {
      running: async () => {
        const [rows] = await (
          await connection
        ).query(
          `select info from information_schema.processlist
            where db = database() and id <> connection_id() and info is not null`,
        );
        return (rows as { info: string }[]).some((row) => TRAIL_STATEMENT.test(row.info));
      },
      close: async () => (await connection).end(),
    };
  }
  return null;
}

/** SQLite: whether the write-ahead log has grown by more than 1 MB over `from` bytes. */
function walGrown(db: TestDb, from: number): () => Promise<boolean> {
  return async () => walSize(db) > from + 1_000_000;
}

function walSize(db: TestDb): number {
  try {
    return fs.statSync(`${db.env.DB_FILENAME}-wal`).size;
  } catch {
    return 0;
  }
}

for (const client of testClients()) {
  describe(`a large write killed half-way (${clientLabel(client)})`, () => {
    let db: TestDb;
    let strata: StrataProcess | undefined;
    after(async () => {
      await strata?.stop('SIGKILL');
      await db?.drop();
    });

    const call = async (method: string, url: string, body?: unknown) => {
      const response = await fetch(`${strata!.url}${url}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      assert.equal(response.status, 200, `${method} ${url}: ${text}`);
      return JSON.parse(text).data;
    };
    const count = async (url: string): Promise<number> =>
      Number((await call('GET', `${url}${url.includes('?') ? '&' : '?'}aggregate[count]=*`))[0].count);

    it('leaves all of the batch with its activity and revisions, or none of it', async (t) => {
      db = await createTestDatabase(client, { fixture: false });
      const env = {
        ...db.env,
        SECRET: 'strata-trail-crash-secret-0123456789abcdef',
        ADMIN_EMAIL: 'admin@example.com',
        ADMIN_PASSWORD: 'strata-trail-crash-password',
        ADMIN_TOKEN,
        RATE_LIMITER_ENABLED: 'false',
        PRESSURE_LIMITER_ENABLED: 'false',
        MAX_PAYLOAD_SIZE: '20mb',
      };
      strata = await StrataProcess.start(env);
      await call('POST', '/collections', {
        collection: COLLECTION,
        meta: { accountability: 'all' },
        schema: {},
        fields: [
          { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
          { field: 'title', type: 'string' },
          { field: 'n', type: 'integer' },
        ],
      });
      const items = Array.from({ length: ITEMS }, (_, n) => ({ title: `item ${n}`, n }));
      const watcher = trailWatcher(db);
      const walBefore = walSize(db);
      const request = fetch(`${strata.url}/items/${COLLECTION}?fields=id`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(items),
      }).then(
        (response) => response.status,
        () => null,
      );
      let midTrail: boolean;
      try {
        midTrail = await waitFor(watcher ? watcher.running : walGrown(db, walBefore), request);
      } finally {
        await strata.stop('SIGKILL');
        await watcher?.close();
      }
      const answered = await request;
      if (watcher) assert.ok(midTrail, `the write answered (${answered}) before a statement of its trail was seen`);

      strata = await StrataProcess.start(env);
      const created = await count(`/items/${COLLECTION}`);
      const activity = await count(`/activity?filter[collection][_eq]=${COLLECTION}&filter[action][_eq]=create`);
      const revisions = await count(`/revisions?filter[collection][_eq]=${COLLECTION}`);
      if (watcher) assert.equal(created, 0, 'killed before its commit, the write left rows');
      else assert.ok(created === 0 || created === ITEMS, `${created} of ${ITEMS} items`);
      if (answered === 200) assert.equal(created, ITEMS, 'an answered write lost rows');
      assert.equal(activity, created, 'activity agrees with the data');
      assert.equal(revisions, created, 'revisions agree with the data');
      t.diagnostic(`killed ${midTrail ? 'mid-write' : 'after the write'} (answer: ${answered}); ${created} items kept`);
      // The server works on after the restart: a write and its trail.
      await call('POST', `/items/${COLLECTION}`, { title: 'after', n: -1 });
      assert.equal(await count(`/activity?filter[collection][_eq]=${COLLECTION}`), created + 1);
    });
  });
}
