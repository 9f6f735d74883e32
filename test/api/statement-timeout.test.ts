/**
 * DB_STATEMENT_TIMEOUT over HTTP, alike on every database: a hostile read (a `_contains` filter whose LIKE costs
 * text length × pattern length on every row) runs past the timeout and is answered 503 SERVICE_UNAVAILABLE naming
 * the setting, on REST and GraphQL; the next request is served at once; a write that runs past it (a nested create
 * whose second statement fires a slow trigger) leaves no row behind.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { Knex } from 'knex';
import type { DbClient } from '../../src/config/config.js';
import { readConfig } from '../../src/config/config.js';
import { createApp } from '../../src/http/app.js';
import { createAppContext } from '../../src/app/app-context.js';
import { ADMIN, json } from '../helpers/test-app.js';
import { clientLabel, createTestDatabase, knexFor, testClients } from '../helpers/test-db.js';

const ROWS = 1000;
/** Each text: 10,000 'a's; a pattern of 1,000 'a's then 'b' nearly matches at every position (tens of ms a row). */
const NEEDLE = `${'a'.repeat(1000)}b`;

/** Tables for the test, made in SQL before Strata starts (it serves them as collections). */
function schemaStatements(client: DbClient): string[] {
  const texts = {
    sqlite3: `insert into timeout_texts (id, body) with recursive c(x) as (select 1 union all select x + 1 from c where x < ${ROWS}) select x, replace(hex(zeroblob(5000)), '0', 'a') from c`,
    pg: `insert into timeout_texts (id, body) select i, repeat('a', 10000) from generate_series(1, ${ROWS}) i`,
    mysql: `insert into timeout_texts (id, body) with recursive c(x) as (select 1 union all select x + 1 from c where x < ${ROWS}) select x, repeat('a', 10000) from c`,
  }[client];
  const key = {
    sqlite3: 'integer primary key autoincrement',
    pg: 'serial primary key',
    mysql: 'integer auto_increment primary key',
  }[client];
  const slowCount = `select count(*) from timeout_texts where body like '%${NEEDLE}%'`;
  const trigger = {
    sqlite3: [`create trigger timeout_children_check after insert on timeout_children begin ${slowCount}; end`],
    pg: [
      `create function timeout_children_check() returns trigger language plpgsql as $$ begin perform (${slowCount}); return new; end $$`,
      'create trigger timeout_children_check after insert on timeout_children for each row execute function timeout_children_check()',
    ],
    mysql: [
      `create trigger timeout_children_check after insert on timeout_children for each row set @strata_slow = (${slowCount})`,
    ],
  }[client];
  return [
    'create table timeout_texts (id integer primary key, body text)',
    texts,
    `create table timeout_parents (id ${key}, name varchar(100))`,
    `create table timeout_children (id ${key}, note varchar(100), parent integer references timeout_parents (id))`,
    ...trigger,
  ];
}

async function isMysqlProper(k: Knex): Promise<boolean> {
  const result = (await k.raw('select version() as v')) as [{ v: string }[]];
  return !/mariadb/i.test(result[0][0]!.v);
}

for (const client of testClients()) {
  describe(`DB_STATEMENT_TIMEOUT (${clientLabel(client)})`, () => {
    it('answers 503 SERVICE_UNAVAILABLE for a read or write past the timeout, keeps serving, and leaves no partial write', async () => {
      const testDb = await createTestDatabase(client, { fixture: false });
      const setup = knexFor(testDb);
      let writesBounded = true;
      try {
        for (const statement of schemaStatements(client)) await setup.raw(statement);
        // MySQL's max_execution_time bounds SELECTs only (MariaDB's max_statement_time, every statement).
        if (client === 'mysql') writesBounded = !(await isMysqlProper(setup));
      } finally {
        await setup.destroy();
      }
      const context = await createAppContext(
        readConfig({
          ...testDb.env,
          ADMIN_EMAIL: ADMIN.email,
          ADMIN_PASSWORD: ADMIN.password,
          ADMIN_TOKEN: ADMIN.token,
          SECRET: 'strata-test-secret-0123456789abcdef',
          LOG_LEVEL: 'silent',
          RATE_LIMITER_ENABLED: 'false',
          PRESSURE_LIMITER_ENABLED: 'false',
          DB_STATEMENT_TIMEOUT: '1s',
        }),
        { bootstrap: true },
      );
      const app = createApp(context, { logger: false, warm: false });
      const headers = { authorization: `Bearer ${ADMIN.token}` };
      const assertTimedOut = (response: LightMyRequestResponse) => {
        assert.equal(response.statusCode, 503, response.body);
        const body = json(response);
        assert.equal(body.errors.length, 1, response.body);
        assert.equal(body.errors[0].extensions.code, 'SERVICE_UNAVAILABLE');
        assert.match(body.errors[0].message, /DB_STATEMENT_TIMEOUT/);
      };
      const assertServing = async () => {
        const ping = await app.inject({ method: 'GET', url: '/server/ping' });
        assert.equal(ping.statusCode, 200, ping.body);
        const read = await app.inject({
          method: 'GET',
          url: '/items/timeout_texts?fields=id&sort=id&limit=2',
          headers,
        });
        assert.equal(read.statusCode, 200, read.body);
        assert.deepEqual(json(read).data, [{ id: 1 }, { id: 2 }]);
      };
      try {
        const slowRead = await app.inject({
          method: 'GET',
          url: `/items/timeout_texts?fields=id&filter[body][_contains]=${NEEDLE}`,
          headers,
        });
        assertTimedOut(slowRead);
        await assertServing();

        const graphql = await app.inject({
          method: 'POST',
          url: '/graphql',
          headers,
          payload: { query: `{ timeout_texts(filter: { body: { _contains: "${NEEDLE}" } }) { id } }` },
        });
        const errors = json(graphql).errors as { message: string; extensions: { code: string } }[];
        assert.equal(errors?.[0]?.extensions.code, 'SERVICE_UNAVAILABLE', graphql.body);
        assert.match(errors[0]!.message, /DB_STATEMENT_TIMEOUT/);
        await assertServing();

        if (writesBounded) {
          // The parent row is written first (m2o), then the child, whose trigger runs past the timeout.
          const slowWrite = await app.inject({
            method: 'POST',
            url: '/items/timeout_children',
            headers,
            payload: { note: 'slow', parent: { name: 'written first' } },
          });
          assertTimedOut(slowWrite);
          await assertServing();
          for (const collection of ['timeout_parents', 'timeout_children']) {
            const count = await app.inject({ method: 'GET', url: `/items/${collection}?aggregate[count]=*`, headers });
            assert.equal(count.statusCode, 200, count.body);
            assert.equal(Number(json(count).data[0].count), 0, `${collection}: ${count.body}`);
          }
          // A write under the timeout still goes through.
          const parent = await app.inject({
            method: 'POST',
            url: '/items/timeout_parents',
            headers,
            payload: { name: 'quick' },
          });
          assert.equal(parent.statusCode, 200, parent.body);
        }
      } finally {
        await app.close();
        await context.close();
        await testDb.drop();
      }
    });
  });
}
