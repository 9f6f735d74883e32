/**
 * The fixed cost of a request, in process: Strata's app answers a scenario through Fastify's `inject` (no socket), and
 * the CPU time of the process per request is printed. Comparing two source trees (the same database, alternating
 * runs) shows what a change of the request path costs or saves without the noise of a load generator sharing the
 * machine. `BENCH_PROFILE=1` writes a V8 CPU profile of the measured requests.
 *
 *   node --import tsx bench/request-cost.ts setup <sqlite|postgres|mysql> <file.json>   builds the dataset once
 *   node --import tsx bench/request-cost.ts run <file.json> [source root] [scenarios]   measures (root: this tree)
 *   node --import tsx bench/request-cost.ts compare <file.json> <root A> <root B> [scenarios]   A against B
 *   (scenarios: ids and paths separated by `|`, e.g. `a|d|/items/authors?limit=1`)
 *   node --import tsx bench/request-cost.ts drop <file.json>                            removes the database
 *
 * `compare` shares node_modules between the two apps, so Fastify's and graphql's code sees both apps' object shapes
 * (their decorations differ) and its inline caches serve two: a tree can look dearer than it is alone. `run` in
 * alternating processes (BENCH_WARMUP, BENCH_MEASURED) is the fairer figure; on a loaded machine both are noisy.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Session } from 'node:inspector/promises';
import http from 'node:http';
import BetterSqlite3 from 'better-sqlite3';
import knexFactory from 'knex';
import pg from 'pg';
import type { DbClient } from '../src/config/config.js';
import { readConfig } from '../src/config/config.js';
import { createAppContext } from '../src/app/app-context.js';
import { insertFixtureMeta } from '../test/helpers/fixture-meta.js';
import { ADMIN } from '../test/helpers/test-app.js';
import { createBenchDatabase, generateDataset } from './dataset.js';
import { selectScenarios, type Scenario } from './scenarios.js';

/** Scenario ids (bench/scenarios.ts), or paths of their own (`/items/authors?limit=1`), comma-separated. */
function scenariosOf(list: string | undefined): Scenario[] {
  const paths = (list ?? '').split('|').filter((entry) => entry.startsWith('/'));
  const ids = (list ?? '').split('|').filter((entry) => entry && !entry.startsWith('/'));
  return [
    ...(ids.length || !paths.length ? selectScenarios(ids.join(',') || undefined) : []),
    ...paths.map((path) => ({ id: path, name: path, path })),
  ];
}

const CLIENTS: Record<string, DbClient> = { sqlite: 'sqlite3', postgres: 'pg', mysql: 'mysql' };
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1500);
const MEASURED = Number(process.env.BENCH_MEASURED ?? 4000);
const CONCURRENCY = 10;

function strataEnv(dbEnv: Record<string, string>): Record<string, string> {
  return {
    ...dbEnv,
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    ADMIN_TOKEN: ADMIN.token,
    SECRET: 'strata-bench-secret-0123456789abcdef',
    LOG_LEVEL: 'silent',
    RATE_LIMITER_ENABLED: 'false',
    PRESSURE_LIMITER_ENABLED: 'false',
  };
}

async function setup(label: string, file: string): Promise<void> {
  const client = CLIENTS[label];
  if (!client) throw new Error(`unknown database ${label}`);
  const testDb = await createBenchDatabase(client);
  await generateDataset(testDb);
  const env = strataEnv(testDb.env);
  const context = await createAppContext(readConfig(env), { bootstrap: true });
  try {
    await insertFixtureMeta(context);
  } finally {
    await context.close();
  }
  writeFileSync(file, JSON.stringify({ client, env }));
}

async function drop(file: string): Promise<void> {
  const { client, env } = JSON.parse(readFileSync(file, 'utf8')) as { client: DbClient; env: Record<string, string> };
  if (client === 'sqlite3') return;
  const url = new URL(env.DB_CONNECTION_STRING!);
  const name = url.pathname.slice(1);
  url.pathname = client === 'pg' ? '/postgres' : '/';
  const k = knexFactory({ client, connection: url.toString() });
  try {
    await k.raw(`drop database ${name}`);
  } finally {
    await k.destroy();
  }
}

async function listen(app: { listen(o: object): Promise<unknown>; server: { address(): unknown } }): Promise<number> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return (app.server.address() as { port: number }).port;
}

/** `count` requests from autocannon in a child process (bench/load.ts's library, run apart from the measured process). */
function autocannon(url: string, count: number, authorization: string): Promise<void> {
  const bin = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', '.bin', 'autocannon');
  return new Promise((resolve, reject) => {
    const child = spawn(
      bin,
      ['-c', String(CONCURRENCY), '-a', String(count), '-H', `authorization=${authorization}`, url],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`autocannon: ${code}: ${errors}`));
      if (/\b[1-9]\d* (errors|non 2xx)/.test(errors)) return reject(new Error(errors));
      resolve();
    });
  });
}

/** The bench's ceiling (bench/ceiling.ts) in this process: the captured statements on the raw driver, bare node:http. */
async function startCeiling(env: Record<string, string>) {
  const routes = new Map<string, { sql: string; params: unknown[] }[]>();
  let runSql: (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>;
  let closeDb: () => Promise<void>;
  if (env.DB_CLIENT === 'sqlite3') {
    const db = new BetterSqlite3(env.DB_FILENAME!);
    db.pragma('journal_mode = WAL');
    const prepared = new Map<string, BetterSqlite3.Statement>();
    runSql = async (sql, params) => {
      let statement = prepared.get(sql);
      if (!statement) prepared.set(sql, (statement = db.prepare(sql)));
      return statement.all(...params.map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v))) as Record<
        string,
        unknown
      >[];
    };
    closeDb = async () => void db.close();
  } else {
    const pool = new pg.Pool({ connectionString: env.DB_CONNECTION_STRING, max: 10 });
    runSql = async (sql, params) => (await pool.query({ text: sql, values: params })).rows;
    closeDb = () => pool.end();
  }
  const server = http.createServer((request, response) => {
    const statements = routes.get(request.url ?? '')!;
    void (async () => {
      let row: Record<string, unknown> | undefined;
      for (const statement of statements) [row] = await runSql(statement.sql, statement.params);
      const data = row?.data;
      const text = data == null ? '[]' : typeof data === 'string' ? data : JSON.stringify(data);
      const body = `{"data":${text}}`;
      response
        .writeHead(200, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(body),
        })
        .end(body);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    routes,
    port,
    close: async () => {
      server.close();
      await closeDb();
    },
  };
}

async function run(file: string, root: string, scenarioList: string | undefined): Promise<void> {
  const { env } = JSON.parse(readFileSync(file, 'utf8')) as { env: Record<string, string> };
  const from = (module: string) => import(pathToFileURL(path.join(root, module)).href);
  const { readConfig: read } = await from('src/config/config.ts');
  const { createAppContext: create } = await from('src/app/app-context.ts');
  const { createApp } = await from('src/http/app.ts');
  const config = read({ ...process.env, ...env, HOST: '127.0.0.1', PORT: '0' });
  const context = await create(config, { bootstrap: true });
  const app = createApp(context, { logger: { level: 'silent' } });
  await app.ready();
  const headers = { authorization: `Bearer ${ADMIN.token}` };
  const profile = process.env.BENCH_PROFILE === '1' ? new Session() : null;
  if (profile) {
    profile.connect();
    await profile.post('Profiler.enable');
  }
  // BENCH_HTTP=1: over loopback HTTP, loaded by autocannon in a child process (whose CPU is not counted).
  const port = process.env.BENCH_HTTP === '1' ? await listen(app) : null;
  const burst = async (url: string, count: number) => {
    if (port !== null) return autocannon(`http://127.0.0.1:${port}${url}`, count, headers.authorization);
    let sent = 0;
    const worker = async () => {
      while (sent < count) {
        sent++;
        const response = await app.inject({ method: 'GET', url, headers });
        if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${response.body}`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  };
  const captured: { sql: string; params: unknown[] }[] = [];
  context.db.onQuery((sql: string, params: unknown[]) => captured.push({ sql, params: [...params] }));
  const ceiling = port !== null ? await startCeiling(env) : null;
  const measure = async (send: (count: number) => Promise<void>) => {
    await send(WARMUP);
    const cpu = process.cpuUsage();
    await send(MEASURED);
    const used = process.cpuUsage(cpu);
    return (used.user + used.system) / MEASURED;
  };
  for (const scenario of scenariosOf(scenarioList)) {
    await burst(scenario.path, 1);
    const statements = captured.splice(0);
    if (profile) await profile.post('Profiler.start');
    const strataUs = await measure((count) => burst(scenario.path, count));
    if (profile) {
      const { profile: data } = await profile.post('Profiler.stop');
      writeFileSync(`request-cost-${scenario.id}.cpuprofile`, JSON.stringify(data));
    }
    captured.length = 0;
    let line = `${scenario.id}\tstrata cpu_us/req ${strataUs.toFixed(1)}`;
    if (ceiling) {
      ceiling.routes.set(scenario.path, statements);
      if (profile) await profile.post('Profiler.start');
      const ceilingUs = await measure((count) =>
        autocannon(`http://127.0.0.1:${ceiling.port}${scenario.path}`, count, headers.authorization),
      );
      if (profile) {
        const { profile: data } = await profile.post('Profiler.stop');
        writeFileSync(`request-cost-${scenario.id}-ceiling.cpuprofile`, JSON.stringify(data));
      }
      line += `\tceiling ${ceilingUs.toFixed(1)}\tratio ${(ceilingUs / strataUs).toFixed(3)}`;
    }
    console.log(line);
  }
  await ceiling?.close();
  await app.close();
  await context.close();
}

/**
 * Two source trees in one process, each with its app on the same database, loaded in alternating rounds: the noise of
 * a shared machine falls on both alike. Prints the median over rounds of B's CPU per request against A's.
 */
async function compare(file: string, roots: string[], scenarioList: string | undefined): Promise<void> {
  const { env } = JSON.parse(readFileSync(file, 'utf8')) as { env: Record<string, string> };
  type Served = {
    app: { inject(o: object): Promise<{ statusCode: number; body: string }>; close(): Promise<void> };
    context: { close(): Promise<void> };
    port: number;
  };
  const apps: Served[] = [];
  for (const root of roots) {
    const from = (module: string) => import(pathToFileURL(path.join(root, module)).href);
    const { readConfig: read } = await from('src/config/config.ts');
    const { createAppContext: create } = await from('src/app/app-context.ts');
    const { createApp } = await from('src/http/app.ts');
    const context = await create(read({ ...process.env, ...env, HOST: '127.0.0.1', PORT: '0' }), { bootstrap: true });
    const app = createApp(context, { logger: { level: 'silent' } });
    apps.push({ app, context, port: await listen(app) });
  }
  const authorization = `Bearer ${ADMIN.token}`;
  const rounds = Number(process.env.BENCH_ROUNDS ?? 8);
  const perRound = Number(process.env.BENCH_REQUESTS ?? 1000);
  // BENCH_HTTP=1: over loopback, loaded by autocannon; otherwise Fastify's inject (short rounds, many of them).
  const http = process.env.BENCH_HTTP === '1';
  const send = async (app: Served, url: string, count: number) => {
    if (http) return autocannon(`http://127.0.0.1:${app.port}${url}`, count, authorization);
    let sent = 0;
    const worker = async () => {
      while (sent < count) {
        sent++;
        const response = await app.app.inject({ method: 'GET', url, headers: { authorization } });
        if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${response.body}`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  };
  for (const scenario of scenariosOf(scenarioList)) {
    for (const app of apps) await send(app, scenario.path, WARMUP);
    const totals = apps.map(() => 0);
    const ratios: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const used = [0, 0];
      // A B B A: a drift of the machine's load within the round falls on both sides alike.
      for (const i of [0, 1, 1, 0]) {
        const cpu = process.cpuUsage();
        await send(apps[i]!, scenario.path, perRound);
        const delta = process.cpuUsage(cpu);
        used[i]! += (delta.user + delta.system) / perRound / 2;
      }
      totals[0]! += used[0]!;
      totals[1]! += used[1]!;
      ratios.push(used[1]! / used[0]!);
    }
    ratios.sort((a, b) => a - b);
    const median = ratios[Math.floor(ratios.length / 2)]!;
    const cut = Math.floor(ratios.length / 4);
    const middle = ratios.slice(cut, ratios.length - cut);
    const trimmed = middle.reduce((a, b) => a + b, 0) / middle.length;
    console.log(
      `${scenario.id}\tA ${(totals[0]! / rounds).toFixed(0)} us/req\tB ${(totals[1]! / rounds).toFixed(0)} us/req\t` +
        `B/A totals ${(totals[1]! / totals[0]!).toFixed(3)} median ${median.toFixed(3)} mid-half mean ${trimmed.toFixed(3)} (${rounds} rounds)`,
    );
  }
  for (const { app, context } of apps) {
    await app.close();
    await context.close();
  }
}

const [command, ...args] = process.argv.slice(2);
if (command === 'setup') await setup(args[0]!, args[1]!);
else if (command === 'drop') await drop(args[0]!);
else if (command === 'run') await run(args[0]!, path.resolve(args[1] ?? '.'), args[2]);
else if (command === 'compare') await compare(args[0]!, [path.resolve(args[1]!), path.resolve(args[2]!)], args[3]);
else throw new Error('usage: request-cost.ts setup <db> <file> | run <file> [root] [scenarios] | drop <file>');
