/**
 * An item's history stays index-served: the statement Strata runs for GET /revisions (and /activity) filtered by
 * collection and item, newest first, is planned through the (collection, item) index on a trail of many rows
 * (EXPLAIN on PostgreSQL and MariaDB, EXPLAIN QUERY PLAN on SQLite).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DbClient } from '../../src/config/config.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { onEveryWorker, startTestApp, type TestApp } from '../helpers/test-app.js';

const ROWS = 20_000;
const PER_ITEM = 10;

/** The item column's text for row n, per database. */
const ITEM_TEXT: Record<DbClient, string> = {
  pg: `(n / ${PER_ITEM})::text`,
  mysql: `cast(floor(n / ${PER_ITEM}) as char)`,
  sqlite3: `cast(n / ${PER_ITEM} as text)`,
};

const EXPLAIN: Record<DbClient, string> = { pg: 'explain ', mysql: 'explain ', sqlite3: 'explain query plan ' };

for (const client of testClients()) {
  describe(`item history plan (${clientLabel(client)})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(client);
      const db = t.context.db;
      await db.query(`insert into service_activity (action, collection, item) values ('create', 'fill', '0')`);
      const [row] = await db.query(`select max(id) as id from service_activity`);
      // MariaDB caps recursion at 1,000 iterations per session by default; its sequence tables have no cap.
      const rows =
        client === 'mysql'
          ? `with g(n) as (select seq from seq_1_to_${ROWS})`
          : `with recursive g(n) as (select 1 union all select n + 1 from g where n < ${ROWS})`;
      const columns = `${Number(row!.id)}, 'fill', ${ITEM_TEXT[client]}, '{}', '{}'`;
      await db.query(
        `insert into service_revisions (activity, collection, item, data, delta) ${rows} select ${columns} from g`,
      );
      await db.query(
        `insert into service_activity (action, collection, item) ${rows} select 'update', 'fill', ${ITEM_TEXT[client]} from g`,
      );
      for (const table of ['service_revisions', 'service_activity'])
        await db.query(client === 'mysql' ? `analyze table ${table}` : `analyze ${table}`);
    });
    after(async () => {
      await t?.close();
    });

    /** The plan of the statement GET `url` ran on `table`, as one text. */
    async function planOf(url: string, table: string): Promise<string> {
      const seen: { sql: string; params: readonly unknown[] }[] = [];
      const stop = onEveryWorker(t, ({ db }) => db.onQuery((sql, params) => seen.push({ sql, params })));
      const res = await t.request({ method: 'GET', url });
      stop();
      assert.equal(res.statusCode, 200, res.body);
      assert.equal((res.json() as { data: unknown[] }).data.length, PER_ITEM);
      const read = seen.find((s) => /^\s*select/i.test(s.sql) && s.sql.includes(table));
      assert.ok(read, `no read of ${table}`);
      const plan = await t.context.db.query(EXPLAIN[client] + read.sql, read.params);
      return JSON.stringify(plan);
    }

    for (const table of ['revisions', 'activity']) {
      it(`GET /${table} of one item is planned through the (collection, item) index`, async () => {
        const plan = await planOf(
          `/${table}?filter[collection][_eq]=fill&filter[item][_eq]=123&sort=-id`,
          `service_${table}`,
        );
        assert.match(plan, new RegExp(`service_${table}_collection_item_index`), plan);
      });
    }
  });
}
