/**
 * Connections that die under Strata: a read is retried once on a fresh connection, a transaction whose connection
 * dies at `begin` runs once on a fresh one, a transaction that had started is never repeated, and whatever cannot be
 * retried is 503 SERVICE_UNAVAILABLE. Connections are killed the way a server or a network does it: the server
 * terminating its backends, and a proxy of the test's own that drops a connection as soon as it is used again.
 * Also the statement timeout (DB_STATEMENT_TIMEOUT) on the servers.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import knexFactory from 'knex';
import type { DbClient } from '../../src/config/config.js';
import { readConfig } from '../../src/config/config.js';
import { ServiceUnavailableError } from '../../src/errors/catalogue.js';
import { createApp } from '../../src/http/app.js';
import { createAppContext } from '../../src/app/app-context.js';
import { ADMIN, errorCode, json } from '../helpers/test-app.js';
import { DroppingProxy } from '../helpers/dropping-proxy.js';
import { clientLabel, createTestDatabase, testClients, type TestDb } from '../helpers/test-db.js';

const servers = testClients().filter((client): client is Exclude<DbClient, 'sqlite3'> => client !== 'sqlite3');

async function startVia(testDb: TestDb, proxy: DroppingProxy | null, env: Record<string, string> = {}) {
  const url = new URL(testDb.env.DB_CONNECTION_STRING!);
  if (proxy) url.port = String(proxy.port);
  const context = await createAppContext(
    readConfig({
      ...testDb.env,
      DB_CONNECTION_STRING: url.toString(),
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      ADMIN_TOKEN: ADMIN.token,
      SECRET: 'strata-test-secret-0123456789abcdef',
      LOG_LEVEL: 'silent',
      RATE_LIMITER_ENABLED: 'false',
      PRESSURE_LIMITER_ENABLED: 'false',
      ...env,
    }),
    { bootstrap: true },
  );
  return { context, app: createApp(context, { logger: false, warm: false }) };
}

for (const client of servers) {
  describe(`connection failures (${clientLabel(client)})`, () => {
    it('retries reads and not-yet-begun transactions on a fresh connection, and never repeats a begun one', async () => {
      const testDb = await createTestDatabase(client, { fixture: true });
      const real = new URL(testDb.env.DB_CONNECTION_STRING!);
      const proxy = new DroppingProxy({
        host: real.hostname,
        port: Number(real.port || (client === 'pg' ? 5432 : 3306)),
      });
      await proxy.start();
      const { context, app } = await startVia(testDb, proxy);
      const auth = { authorization: `Bearer ${ADMIN.token}` };
      try {
        assert.equal(
          (await app.inject({ method: 'GET', url: '/items/authors?limit=1', headers: auth })).statusCode,
          200,
        );

        // A read on a connection that dies under it: run again on a fresh one.
        proxy.dropOnNextUse();
        assert.deepEqual(await context.db.query('select 1 as one'), [{ one: 1 }]);
        proxy.dropOnNextUse();
        const read = await app.inject({
          method: 'GET',
          url: '/items/authors?fields=name&sort=id&limit=1',
          headers: auth,
        });
        assert.equal(read.statusCode, 200, read.body);
        assert.deepEqual(json(read).data, [{ name: 'Ada Lovelace' }]);

        // A transaction whose connection dies at begin: nothing ran, so it runs (once) on a fresh connection.
        let runs = 0;
        proxy.dropOnNextUse();
        await context.db.transaction(async (tx) => {
          runs++;
          await tx.query("insert into tags (name) values ('retried')");
        });
        assert.equal(runs, 1);

        // A transaction whose connection dies after it began: not repeated, 503, and nothing written.
        runs = 0;
        const failed = await context.db
          .transaction(async (tx) => {
            runs++;
            await tx.query("insert into tags (name) values ('lost')");
            proxy.dropOnNextUse();
            await tx.query('select 1');
          })
          .then(
            () => null,
            (error: unknown) => error,
          );
        assert.ok(failed instanceof ServiceUnavailableError, String(failed));
        assert.equal(runs, 1);
        const names = (await context.db.query<{ name: string }>('select name from tags order by id')).map(
          (r) => r.name,
        );
        assert.ok(names.includes('retried') && !names.includes('lost'), names.join());

        // A write request through the API on connections that die before use: answered, and written once.
        proxy.dropOnNextUse();
        const created = await app.inject({
          method: 'POST',
          url: '/items/tags',
          headers: auth,
          payload: { name: 'via api' },
        });
        assert.ok(created.statusCode === 200 || created.statusCode === 503, created.body);
        const count = (
          await context.db.query<{ n: number | string }>("select count(*) as n from tags where name = 'via api'")
        )[0]!.n;
        assert.equal(Number(count), created.statusCode === 200 ? 1 : Number(count));
        assert.ok(Number(count) <= 1);
      } finally {
        await app.close();
        await context.close();
        await proxy.stop();
        await testDb.drop();
      }
    });

    it('answers requests after the server terminates its connections, never 500', async () => {
      const testDb = await createTestDatabase(client, { fixture: true });
      const { context, app } = await startVia(testDb, null);
      const admin = knexFactory({
        client: client === 'pg' ? 'pg' : 'mysql2',
        connection: testDb.env.DB_CONNECTION_STRING!,
        pool: { min: 0, max: 1 },
      });
      const auth = { authorization: `Bearer ${ADMIN.token}` };
      const database = new URL(testDb.env.DB_CONNECTION_STRING!).pathname.slice(1);
      const killAll = async () => {
        if (client === 'pg') {
          await admin.raw(
            'select pg_terminate_backend(pid) from pg_stat_activity where datname = ? and pid <> pg_backend_pid()',
            [database],
          );
        } else {
          const [rows] = (await admin.raw(
            'select id from information_schema.processlist where db = ? and id <> connection_id()',
            [database],
          )) as [{ id: number }[]];
          for (const row of rows) await admin.raw(`kill ${Number(row.id)}`).catch(() => {});
        }
      };
      try {
        for (let round = 0; round < 3; round++) {
          const burst = Array.from({ length: 8 }, (_, i) =>
            app.inject({ method: 'GET', url: `/items/articles?fields=id,author.name&limit=${i + 1}`, headers: auth }),
          );
          await killAll();
          const statuses = (await Promise.all(burst)).map((r) => {
            assert.ok(r.statusCode === 200 || errorCode(r) === 'SERVICE_UNAVAILABLE', `${r.statusCode} ${r.body}`);
            return r.statusCode;
          });
          assert.ok(statuses.length === 8);
          const after = await app.inject({ method: 'GET', url: '/items/articles?fields=id&limit=1', headers: auth });
          assert.equal(after.statusCode, 200, after.body);
        }
      } finally {
        await admin.destroy();
        await app.close();
        await context.close();
        await testDb.drop();
      }
    });

    it('cancels statements running longer than DB_STATEMENT_TIMEOUT with 503 SERVICE_UNAVAILABLE', async () => {
      const testDb = await createTestDatabase(client, { fixture: true });
      const { context, app } = await startVia(testDb, null, { DB_STATEMENT_TIMEOUT: '1s' });
      try {
        const slow =
          client === 'pg'
            ? 'select count(*) from generate_series(1, 2000000000)'
            : 'select count(*) from information_schema.columns a, information_schema.columns b, information_schema.columns c';
        const error = await context.db.query(slow).then(
          () => null,
          (e: unknown) => e,
        );
        assert.ok(error instanceof ServiceUnavailableError, String(error));
        assert.match(error.message, /DB_STATEMENT_TIMEOUT/);
        assert.equal(
          (
            await app.inject({
              method: 'GET',
              url: '/items/tags?limit=1',
              headers: { authorization: `Bearer ${ADMIN.token}` },
            })
          ).statusCode,
          200,
        );
      } finally {
        await app.close();
        await context.close();
        await testDb.drop();
      }
    });
  });
}
