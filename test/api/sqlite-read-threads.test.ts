/**
 * SQLite reads off the event loop (DB_READ_THREADS): a long read does not hold other requests (they are answered
 * while it still runs); past DB_STATEMENT_TIMEOUT it fails with 503 while the others are served; a read thread that
 * dies fails its reads with 503 and the next read works; reads answer exactly as inline reads do; 0 keeps reads
 * inline. SQLite only: the other databases' drivers never run a statement on the event loop.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { readThreads } from '../../src/db/connection.js';
import { ADMIN, json, startSecondInstance, startTestApp, type TestApp } from '../helpers/test-app.js';
import { knexFor } from '../helpers/test-db.js';

/** 'a' × 1,000 then 'b': LIKE '%…%' almost matches at each of the 5,000 positions of a text of 'a's (ms a row). */
const NEEDLE = `${'a'.repeat(1000)}b`;
const SLOW_READ = `/items/slow_texts?fields=id&filter[body][_contains]=${NEEDLE}`;

/** A table whose `_contains` read takes a while (rows × tens of ms), made in SQL before Strata starts. */
async function slowTexts(rows: number, env: Record<string, string> = {}): Promise<TestApp> {
  const t = await startTestApp('sqlite3', { fixture: false, env });
  const setup = knexFor(t.testDb);
  try {
    await setup.raw('create table slow_texts (id integer primary key, body text)');
    await setup.raw(
      `insert into slow_texts (id, body) with recursive c(x) as (select 1 union all select x + 1 from c where x < ${rows}) select x, replace(hex(zeroblob(5000)), '0', 'a') from c`,
    );
    const reload = await t.request({ method: 'POST', url: '/utils/cache/clear' });
    assert.ok(reload.statusCode < 300, reload.body);
  } catch (error) {
    await t.close();
    throw error;
  } finally {
    await setup.destroy();
  }
  return t;
}

/** Resolves when the slow read's statement has been sent to the database. */
function slowStatementSent(t: TestApp): Promise<void> {
  return new Promise((resolve) => {
    const stop = t.context.db.onQuery((sql) => {
      if (!/slow_texts/.test(sql) || !/like/i.test(sql)) return;
      stop();
      resolve();
    });
  });
}

/** Sends the slow read; `answered()` says whether it has been answered yet. */
function startSlowRead(t: TestApp): { response: Promise<LightMyRequestResponse>; answered(): boolean } {
  let done = false;
  const response = t.request({ method: 'GET', url: SLOW_READ }).finally(() => {
    done = true;
  });
  return { response, answered: () => done };
}

/** Other requests, answered while the slow read has not been. */
async function assertServedMeanwhile(t: TestApp, slow: { answered(): boolean }): Promise<void> {
  const ping = await t.request({ method: 'GET', url: '/server/ping', token: null });
  assert.equal(ping.statusCode, 200, ping.body);
  assert.equal(slow.answered(), false, 'the ping waited for the slow read');
  const quick = await t.request({ method: 'GET', url: '/items/slow_texts?fields=id&sort=id&limit=2' });
  assert.equal(quick.statusCode, 200, quick.body);
  assert.deepEqual(json(quick).data, [{ id: 1 }, { id: 2 }]);
  assert.equal(slow.answered(), false, 'the quick read waited for the slow read');
}

describe('SQLite read threads', () => {
  it('answers other requests while a long read runs', async () => {
    const t = await slowTexts(60, { DB_READ_THREADS: '2', DB_STATEMENT_TIMEOUT: '0' });
    try {
      const sent = slowStatementSent(t);
      const slow = startSlowRead(t);
      await sent;
      await assertServedMeanwhile(t, slow);
      const response = await slow.response;
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(json(response).data, []);
    } finally {
      await t.close();
    }
  });

  it('fails a read past DB_STATEMENT_TIMEOUT with 503 while other requests are served', async () => {
    const t = await slowTexts(1000, { DB_READ_THREADS: '2', DB_STATEMENT_TIMEOUT: '1s' });
    try {
      const sent = slowStatementSent(t);
      const slow = startSlowRead(t);
      await sent;
      await assertServedMeanwhile(t, slow);
      const response = await slow.response;
      assert.equal(response.statusCode, 503, response.body);
      assert.equal(json(response).errors[0].extensions.code, 'SERVICE_UNAVAILABLE');
      assert.match(json(response).errors[0].message, /DB_STATEMENT_TIMEOUT/);
    } finally {
      await t.close();
    }
  });

  it('fails the reads of a thread that dies with 503, and the next read is served', async () => {
    const t = await slowTexts(40, { DB_READ_THREADS: '1', DB_STATEMENT_TIMEOUT: '0' });
    try {
      const sent = slowStatementSent(t);
      const slow = startSlowRead(t);
      await sent;
      // The statement is observed before it is handed to a thread, which starts then.
      for (let turn = 0; turn < 1000 && readThreads(t.context.db).length === 0; turn++)
        await new Promise((resolve) => setImmediate(resolve));
      const [thread] = readThreads(t.context.db);
      assert.ok(thread, 'a read thread runs the slow read');
      await thread.terminate();
      const response = await slow.response;
      assert.equal(response.statusCode, 503, response.body);
      assert.equal(json(response).errors[0].extensions.code, 'SERVICE_UNAVAILABLE');
      const next = await t.request({ method: 'GET', url: '/items/slow_texts?fields=id&sort=id&limit=1' });
      assert.equal(next.statusCode, 200, next.body);
      assert.deepEqual(json(next).data, [{ id: 1 }]);
    } finally {
      await t.close();
    }
  });

  it('answers reads exactly as inline reads do, and DB_READ_THREADS=0 keeps them inline', async () => {
    const t = await startTestApp('sqlite3', { relations: true, env: { DB_READ_THREADS: '2' } });
    const inline = await startSecondInstance(t, { DB_READ_THREADS: '0' });
    const headers = { authorization: `Bearer ${ADMIN.token}` };
    try {
      const urls = [
        '/items/articles?sort=id',
        '/items/articles?fields=*,author.*,tags.tags_id.name&sort=-id&limit=4',
        '/items/articles/1',
        '/items/articles?filter[views][_gt]=100&fields=id,views,price,score,metadata,published_at,read_time',
        '/items/articles?aggregate[count]=*&aggregate[sum]=views&aggregate[avg]=price&groupBy[]=status',
        '/items/articles?aggregate[countDistinct]=author&meta=*',
        '/items/authors?fields=*,articles.title&deep[articles][_limit]=1',
        '/items/pages?fields=*,sections.*&sort=id',
        '/items/articles?search=body&meta=filter_count',
      ];
      for (const url of urls) {
        const threaded = await t.request({ method: 'GET', url });
        const direct = await inline.app.inject({ method: 'GET', url, headers });
        assert.equal(threaded.statusCode, 200, `${url}: ${threaded.body}`);
        assert.equal(threaded.body, direct.body, url);
      }
      const query = '{ articles(sort: ["id"]) { id title views price metadata author { name } } }';
      const graphql = await t.request({ method: 'POST', url: '/graphql', payload: { query } });
      const graphqlInline = await inline.app.inject({
        method: 'POST',
        url: '/graphql',
        headers,
        payload: { query },
      });
      assert.equal(graphql.body, graphqlInline.body);
      assert.ok(readThreads(t.context.db).length > 0, 'the reads ran on read threads');
      assert.equal(readThreads(inline.context.db).length, 0, 'DB_READ_THREADS=0 starts no thread');
    } finally {
      await inline.close();
      await t.close();
    }
  });

  it('reads what was just written and sees schema changes', async () => {
    const t = await startTestApp('sqlite3', { fixture: false, env: { DB_READ_THREADS: '2' } });
    try {
      const made = await t.request({
        method: 'POST',
        url: '/collections',
        payload: {
          collection: 'notes',
          schema: {},
          fields: [
            { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
            { field: 'text', type: 'string' },
          ],
        },
      });
      assert.equal(made.statusCode, 200, made.body);
      for (const text of ['one', 'two']) {
        const created = await t.request({ method: 'POST', url: '/items/notes', payload: { text } });
        assert.equal(created.statusCode, 200, created.body);
        const read = await t.request({ method: 'GET', url: '/items/notes?fields=text&sort=id' });
        assert.deepEqual(json(read).data.at(-1), { text });
      }
      const field = await t.request({
        method: 'POST',
        url: '/fields/notes',
        payload: { field: 'rank', type: 'integer', schema: { default_value: 7 } },
      });
      assert.equal(field.statusCode, 200, field.body);
      const read = await t.request({ method: 'GET', url: '/items/notes?sort=id' });
      assert.equal(read.statusCode, 200, read.body);
      assert.deepEqual(json(read).data, [
        { id: 1, text: 'one', rank: 7 },
        { id: 2, text: 'two', rank: 7 },
      ]);
    } finally {
      await t.close();
    }
  });
});
