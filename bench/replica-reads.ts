/**
 * `npm run bench -- --replicas`: reads through a replica against reads on the primary alone, on PostgreSQL (a
 * streaming replica, test/helpers/pg-replica.ts) and MariaDB (a GTID replica, test/helpers/mariadb-replica.ts), each
 * pair made for the run and stopped after it (BENCH_DB picks: `pg`, `mysql`, or both, the default). The same app runs
 * a list read `/items/articles?limit=25` with BENCH_CONNECTIONS in flight for BENCH_DURATION seconds, once without
 * DB_REPLICAS and once with it, and reports requests per second and how many reads the replica answered.
 */
import { performance } from 'node:perf_hooks';
import knexFactory from 'knex';
import { createAppContext } from '../src/app/app-context.js';
import { readConfig } from '../src/config/config.js';
import { createApp } from '../src/http/app.js';
import type { DbClient } from '../src/config/config.js';
import { startMariadbPair } from '../test/helpers/mariadb-replica.js';
import { startPgPair } from '../test/helpers/pg-replica.js';
import { ADMIN } from '../test/helpers/test-app.js';
import { fixtureStatements } from '../test/helpers/test-db.js';

interface ReplicaBenchSettings {
  duration: number;
  connections: number;
}

interface Pair {
  primaryUrl(database: string): string;
  replicaUrl(database: string): string;
  stop(): Promise<void>;
}

type ReplicaClient = 'pg' | 'mysql';

const SERVERS: Record<ReplicaClient, { label: string; knex: string; admin: string; fill: string[] }> = {
  pg: {
    label: 'PostgreSQL streaming replica',
    knex: 'pg',
    admin: 'postgres',
    fill: [
      "insert into articles (title, status, rating) select 'Article ' || i, 'published', i % 5 from generate_series(1, 5000) i",
    ],
  },
  mysql: {
    label: 'MariaDB GTID replica',
    knex: 'mysql2',
    admin: '',
    fill: [
      'set max_recursive_iterations = 10000',
      'insert into articles (title, status, rating) with recursive s (i) as (select 1 union all select i + 1 from s where i < 5000) ' +
        "select concat('Article ', i), 'published', i % 5 from s",
    ],
  },
};

async function prepare(client: ReplicaClient, pair: Pair): Promise<void> {
  const server = SERVERS[client];
  const setup = knexFactory({ client: server.knex, connection: pair.primaryUrl(server.admin) });
  await setup.raw('create database strata').finally(() => setup.destroy());
  const k = knexFactory({ client: server.knex, connection: pair.primaryUrl('strata') });
  try {
    for (const statement of fixtureStatements(client as DbClient)) await k.raw(statement.replace(/\?/g, '\\?'));
    // One connection: the session setting holds for the statement after it.
    await k.transaction(async (trx) => {
      for (const statement of server.fill) await trx.raw(statement);
    });
  } finally {
    await k.destroy();
  }
}

async function run(client: ReplicaClient, pair: Pair, replicas: boolean, settings: ReplicaBenchSettings) {
  const context = await createAppContext(
    readConfig({
      DB_CLIENT: client,
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
    // Until the replica is known to be caught up (it replays the fill and the bootstrap), reads go to the primary.
    const caughtUp = () => {
      const state = context.db.replicaStates()[0];
      return state !== undefined && state.up && state.lagMs !== null && state.lagMs <= 2000;
    };
    for (let i = 0; i < 1200 && replicas && !caughtUp(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    if (replicas && !caughtUp())
      console.log(`   the replica did not catch up in 60 s: ${JSON.stringify(context.db.replicaStates())}`);
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

/** BENCH_DB for this mode: `pg`, `mysql` (`mariadb`), a comma list; both by default. */
function replicaClients(value: string | undefined): ReplicaClient[] {
  const names: Record<string, ReplicaClient> = { pg: 'pg', postgres: 'pg', mysql: 'mysql', mariadb: 'mysql' };
  if (!value || value === 'all') return ['pg', 'mysql'];
  return value.split(',').map((name) => {
    const client = names[name.trim()];
    if (!client) throw new Error(`--replicas: BENCH_DB ${name} has no replica here (pg, mysql)`);
    return client;
  });
}

export async function benchReplicas(settings: ReplicaBenchSettings): Promise<void> {
  for (const client of replicaClients(process.env.BENCH_DB)) await benchPair(client, settings);
}

async function benchPair(client: ReplicaClient, settings: ReplicaBenchSettings): Promise<void> {
  const pair: Pair | null = client === 'pg' ? await startPgPair() : await startMariadbPair();
  if (!pair) throw new Error(`--replicas needs the ${client === 'pg' ? 'PostgreSQL 15' : 'MariaDB'} server programs`);
  try {
    await prepare(client, pair);
    const primary = await run(client, pair, false, settings);
    const withReplica = await run(client, pair, true, settings);
    console.log(
      `\nReads through a ${SERVERS[client].label} (${settings.connections} in flight, ${settings.duration} s each)\n`,
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
