/**
 * Read replicas (DB_REPLICAS) against real replicas made by the test: a PostgreSQL streaming replica (pg_basebackup)
 * and a MariaDB GTID replica (two mariadbd of the test's own): reads are served by the replica, a caller's read right
 * after their own write sees it, a replica that hangs fails no request, and one whose replay is paused past
 * DB_REPLICA_MAX_LAG is skipped. SQLite refuses them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import knexFactory from 'knex';
import { ConfigError, readConfig } from '../../src/config/config.js';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { createAppContext, type AppContext } from '../../src/app/app-context.js';
import { createApp } from '../../src/http/app.js';
import { ADMIN, json } from '../helpers/test-app.js';
import { fixtureStatements } from '../helpers/test-db.js';
import { startPgPair } from '../helpers/pg-replica.js';
import { startMariadbPair } from '../helpers/mariadb-replica.js';
import type { DbClient } from '../../src/config/config.js';

describe('read replicas: settings', () => {
  it('refuses DB_REPLICAS on SQLite at start, naming the setting', () => {
    assert.throws(
      () => readConfig({ DB_CLIENT: 'sqlite3', DB_REPLICAS: 'postgres://postgres@127.0.0.1:5433/x' }),
      (error: unknown) =>
        error instanceof ConfigError && /DB_REPLICAS/.test(error.message) && /SQLite/.test(error.message),
    );
  });

  it('refuses a replica URL of another database', () => {
    assert.throws(
      () => readConfig({ DB_CLIENT: 'pg', DB_DATABASE: 'x', DB_REPLICAS: 'mysql://root@127.0.0.1:3306/x' }),
      (error: unknown) => error instanceof ConfigError && /DB_REPLICAS/.test(error.message),
    );
  });
});

/** Polls `check` until it holds (the probe runs every 50 ms here); fails after `ms`. */
async function until(check: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await sleep(25);
  }
}

/** A primary and its replica, whatever the database: what the tests do to them. */
interface Pair {
  primaryUrl(database: string): string;
  replicaUrl(database: string): string;
  /** Stops applying the primary's changes on the replica (it stays up and answers), and resumes it. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  signalReplica(signal: 'SIGSTOP' | 'SIGCONT'): void;
  stop(): Promise<void>;
}

interface ReplicaApp {
  context: AppContext;
  request(options: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

const KNEX_CLIENT = { pg: 'pg', mysql: 'mysql2' } as const;

/** Strata over the pair's primary (the blog fixture, bootstrapped) with the replica in DB_REPLICAS. */
async function startReplicaApp(client: 'pg' | 'mysql', pair: Pair): Promise<ReplicaApp> {
  const setup = knexFactory({
    client: KNEX_CLIENT[client],
    connection: pair.primaryUrl(client === 'pg' ? 'postgres' : ''),
  });
  await setup.raw('create database strata').finally(() => setup.destroy());
  const fixture = knexFactory({ client: KNEX_CLIENT[client], connection: pair.primaryUrl('strata') });
  try {
    for (const statement of fixtureStatements(client as DbClient)) await fixture.raw(statement.replace(/\?/g, '\\?'));
  } finally {
    await fixture.destroy();
  }
  const context = await createAppContext(
    readConfig({
      DB_CLIENT: client,
      DB_CONNECTION_STRING: pair.primaryUrl('strata'),
      DB_REPLICAS: pair.replicaUrl('strata'),
      DB_REPLICA_PROBE_INTERVAL: '50ms',
      DB_REPLICA_MAX_LAG: '400ms',
      // Generous: on a machine busy with other work a fresh connection's first statement has taken over 500 ms.
      DB_REPLICA_TIMEOUT: '2s',
      DB_REPLICA_POOL_MAX: '4',
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      ADMIN_TOKEN: ADMIN.token,
      SECRET: 'strata-test-secret-0123456789abcdef',
      LOG_LEVEL: 'silent',
      RATE_LIMITER_ENABLED: 'false',
      PRESSURE_LIMITER_ENABLED: 'false',
    }),
    { bootstrap: true },
  );
  const app = createApp(context, { logger: false, warm: false });
  await app.ready();
  return {
    context,
    request: (options) =>
      app.inject({ ...options, headers: { authorization: `Bearer ${ADMIN.token}`, ...(options.headers ?? {}) } }),
    async close() {
      await app.close();
      await context.close();
    },
  };
}

async function pgPair(): Promise<Pair | null> {
  const pair = await startPgPair();
  if (!pair) return null;
  const onReplica = (sql: string) => {
    const k = knexFactory({ client: 'pg', connection: pair.replicaUrl('strata') });
    return k.raw(sql).finally(() => k.destroy());
  };
  return {
    ...pair,
    pauseReplay: () => onReplica('select pg_wal_replay_pause()').then(() => {}),
    resumeReplay: () => onReplica('select pg_wal_replay_resume()').then(() => {}),
  };
}

async function mariadbPair(): Promise<Pair | null> {
  const pair = await startMariadbPair();
  if (!pair) return null;
  return {
    ...pair,
    pauseReplay: () => pair.onReplica('stop slave sql_thread'),
    resumeReplay: () => pair.onReplica('start slave sql_thread'),
  };
}

const SERVERS = [
  {
    client: 'pg' as const,
    name: 'PostgreSQL streaming replica',
    needs: process.env.TEST_PG_URL ? null : 'TEST_PG_URL is not set',
    start: pgPair,
    missing: 'PostgreSQL 15 programs are not installed',
  },
  {
    client: 'mysql' as const,
    name: 'MariaDB GTID replica',
    needs: process.env.TEST_MYSQL_URL ? null : 'TEST_MYSQL_URL is not set',
    start: mariadbPair,
    missing: 'MariaDB server programs are not installed',
  },
];

for (const server of SERVERS) {
  describe(`read replicas (${server.name})`, { skip: server.needs ?? false }, () => {
    let pair: Pair | null = null;
    let t: ReplicaApp;
    const served = () => t.context.db.replicaStates()[0].served;
    const state = () => t.context.db.replicaStates()[0];

    before(async () => {
      pair = await server.start();
      if (!pair) return;
      t = await startReplicaApp(server.client, pair);
      await until(() => state().up && state().lagMs !== null && state().lagMs! <= 400, 'the replica is caught up');
    });

    after(async () => {
      await t?.close();
      await pair?.stop();
    });

    it('serves reads (items, GraphQL) from the replica', async (ctx) => {
      if (!pair) return ctx.skip(server.missing);
      // Each read is asked until the replica answers it: on a machine busy with other work a probe round can take
      // longer than the lag bound, and reads then go to the primary for a while (which is the rule, not a failure).
      const servedBy = async (read: () => Promise<LightMyRequestResponse>, check: (body: any) => void) => {
        await until(async () => {
          const before = served();
          const answer = await read();
          assert.equal(answer.statusCode, 200, answer.body);
          check(json(answer));
          return served() > before;
        }, 'the replica answers the read');
      };
      await servedBy(
        () => t.request({ method: 'GET', url: '/items/articles?fields=id,title&sort=id' }),
        (body) => assert.equal(body.data[0].title, 'Hello World'),
      );
      await servedBy(
        () =>
          t.request({ method: 'POST', url: '/graphql', payload: { query: '{ articles(sort: "id") { id title } }' } }),
        (body) => assert.equal(body.data.articles[0].title, 'Hello World'),
      );
    });

    it("a caller's read right after their own write sees it", async (ctx) => {
      if (!pair) return ctx.skip(server.missing);
      for (let i = 0; i < 15; i++) {
        const created = await t.request({
          method: 'POST',
          url: '/items/articles',
          payload: { title: `ryw ${i}`, status: 'draft' },
        });
        assert.equal(created.statusCode, 200, created.body);
        const id = json(created).data.id;
        const read = await t.request({ method: 'GET', url: `/items/articles/${id}?fields=title` });
        assert.equal(read.statusCode, 200, read.body);
        assert.equal(json(read).data.title, `ryw ${i}`);
        const patched = await t.request({
          method: 'PATCH',
          url: `/items/articles/${id}`,
          payload: { title: `ryw ${i}!` },
        });
        assert.equal(patched.statusCode, 200);
        const list = await t.request({ method: 'GET', url: `/items/articles?filter[id][_eq]=${id}&fields=title` });
        assert.equal(json(list).data[0].title, `ryw ${i}!`);
      }
      // And once the replica has the writes, the same caller's reads go back to it.
      const before = served();
      await until(async () => {
        await t.request({ method: 'GET', url: '/items/articles?limit=1' });
        return served() > before;
      }, 'reads return to the replica');
    });

    it('a replica whose replay is paused past DB_REPLICA_MAX_LAG is skipped', async (ctx) => {
      if (!pair) return ctx.skip(server.missing);
      const primary = knexFactory({ client: KNEX_CLIENT[server.client], connection: pair.primaryUrl('strata') });
      try {
        await pair.pauseReplay();
        // A write no Strata caller made: only the replica's lag can keep readers from a stale answer.
        await primary.raw("insert into articles (title, status) values ('written behind its back', 'draft')");
        await until(() => state().lagMs! > 400, 'the lag is measured past the bound');
        const before = served();
        const read = await t.request({
          method: 'GET',
          url: '/items/articles?filter[title][_eq]=written behind its back',
        });
        assert.equal(read.statusCode, 200);
        assert.equal(json(read).data.length, 1, 'read on the primary');
        assert.equal(served(), before, 'the lagging replica served nothing');
        await pair.resumeReplay();
        await until(async () => {
          await t.request({ method: 'GET', url: '/items/articles?limit=1' });
          return served() > before;
        }, 'the replica serves again once caught up');
      } finally {
        await pair.resumeReplay().catch(() => {});
        await primary.destroy();
      }
    });

    it('a replica that stops answering fails no request; reads go to the primary', async (ctx) => {
      if (!pair) return ctx.skip(server.missing);
      pair.signalReplica('SIGSTOP');
      try {
        for (let i = 0; i < 6; i++) {
          const read = await t.request({ method: 'GET', url: '/items/articles?fields=id&sort=id&limit=1' });
          assert.equal(read.statusCode, 200, read.body);
          assert.equal(json(read).data[0].id, 1);
        }
        await until(() => !state().up, 'the replica is marked down');
        const failures = state().failures;
        assert.ok(failures >= 1);
      } finally {
        pair.signalReplica('SIGCONT');
      }
      const before = served();
      await until(async () => {
        await t.request({ method: 'GET', url: '/items/articles?limit=1' });
        return served() > before;
      }, 'the replica serves again after it resumes');
    });
  });
}
