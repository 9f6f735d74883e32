/**
 * `npm run bench -- --replicas`: reads through a PostgreSQL streaming replica against reads on the primary alone.
 * A primary and its replica are made for the run (test/helpers/pg-replica.ts); the same app runs a list read
 * `/items/articles?limit=25` with BENCH_CONNECTIONS in flight for BENCH_DURATION seconds, once without DB_REPLICAS
 * and once with it, and reports requests per second and how many reads the replica answered.
 */
import { performance } from 'node:perf_hooks';
import knexFactory from 'knex';
import { createAppContext } from '../src/app/app-context.js';
import { readConfig } from '../src/config/config.js';
import { createApp } from '../src/http/app.js';
import { startPgPair, type PgPair } from '../test/helpers/pg-replica.js';
import { ADMIN } from '../test/helpers/test-app.js';
import { fixtureStatements } from '../test/helpers/test-db.js';

interface ReplicaBenchSettings {
  duration: number;
  connections: number;
}

async function prepare(pair: PgPair): Promise<void> {
  const setup = knexFactory({ client: 'pg', connection: pair.primaryUrl('postgres') });
  await setup.raw('create database strata').finally(() => setup.destroy());
  const k = knexFactory({ client: 'pg', connection: pair.primaryUrl('strata') });
  try {
    for (const statement of fixtureStatements('pg')) await k.raw(statement.replace(/\?/g, '\\?'));
    await k.raw(
      "insert into articles (title, status, rating) select 'Article ' || i, 'published', i % 5 from generate_series(1, 5000) i",
    );
  } finally {
    await k.destroy();
  }
}

async function run(pair: PgPair, replicas: boolean, settings: ReplicaBenchSettings) {
  const context = await createAppContext(
    readConfig({
      DB_CLIENT: 'pg',
      DB_CONNECTION_STRING: pair.primaryUrl('strata'),
      ...(replicas ? { DB_REPLICAS: pair.replicaUrl('strata') } : {}),
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      ADMIN_TOKEN: ADMIN.token,
      SECRET: 'strata-bench-secret-0123456789abcdef',
      LOG_LEVEL: 'silent',
      RATE_LIMITER_ENABLED: 'false',
      PRESSURE_LIMITER_ENABLED: 'false',
    }),
    { bootstrap: true },
  );
  const app = createApp(context, { logger: false, warm: false });
  await app.ready();
  const read = () =>
    app.inject({
      method: 'GET',
      url: '/items/articles?limit=25&fields=id,title,rating&sort=-id',
      headers: { authorization: `Bearer ${ADMIN.token}` },
    });
  try {
    // Until the replica is known to be caught up, reads go to the primary.
    for (let i = 0; i < 100 && replicas && !context.db.replicaStates()[0]?.up; i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const until = performance.now() + 2000;
    while (performance.now() < until) await read();
    const servedBefore = context.db.replicaStates()[0]?.served ?? 0;
    let done = 0;
    let failed = 0;
    const end = performance.now() + settings.duration * 1000;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: settings.connections }, async () => {
        while (performance.now() < end) {
          const response = await read();
          if (response.statusCode === 200) done++;
          else failed++;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const served = (context.db.replicaStates()[0]?.served ?? 0) - servedBefore;
    return { rps: Math.round(done / seconds), failed, onReplica: done ? served / done : 0 };
  } finally {
    await app.close();
    await context.close();
  }
}

export async function benchReplicas(settings: ReplicaBenchSettings): Promise<void> {
  const pair = await startPgPair();
  if (!pair) throw new Error('--replicas needs PostgreSQL 15 (initdb, pg_basebackup) installed');
  try {
    await prepare(pair);
    const primary = await run(pair, false, settings);
    const withReplica = await run(pair, true, settings);
    console.log(
      `\nReads through a PostgreSQL streaming replica (${settings.connections} in flight, ${settings.duration} s each)\n`,
    );
    console.log('| Reads go to | req/s | failed | answered by the replica |');
    console.log('|---|---|---|---|');
    console.log(`| primary only | ${primary.rps} | ${primary.failed} | – |`);
    console.log(
      `| primary + 1 replica (DB_REPLICAS) | ${withReplica.rps} | ${withReplica.failed} | ${(withReplica.onReplica * 100).toFixed(0)} % |`,
    );
  } finally {
    await pair.stop();
  }
}
