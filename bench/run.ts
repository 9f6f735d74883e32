/**
 * `npm run bench`: for each chosen database, a throwaway database with the bench dataset (bench/dataset.ts), Strata in
 * a child process (bench/server.ts) and the ceiling in another (bench/ceiling.ts); each scenario (bench/scenarios.ts)
 * is loaded with autocannon on Strata, then on the ceiling replaying the SQL Strata ran for it. Prints a table and
 * writes bench/results/<db>-<timestamp>.json. Loopback only; every step is bounded in time; the children are stopped
 * by PID and the database dropped, also on Ctrl-C. Settings: docs/benchmarks.md.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DbClient } from '../src/config/config.js';
import { readConfig } from '../src/config/config.js';
import { createAppContext } from '../src/app/app-context.js';
import { insertFixtureMeta } from '../test/helpers/fixture-meta.js';
import { ADMIN } from '../test/helpers/test-app.js';
import { clientLabel, knexFor, type TestDb } from '../test/helpers/test-db.js';
import { bulkLoadArticles } from './bulk-load.js';
import { createBenchDatabase, DEFAULT_SIZE, generateDataset } from './dataset.js';
import { Child } from './ipc.js';
import { load, probe, type LoadResult, type LoadSettings, type Probe } from './load.js';
import { printReport, writeReport, type BenchReport, type CeilingResult, type ScenarioResult } from './report.js';
import { openRawDriver, scaleScenarios, type ScaleScenario } from './scale.js';
import { assetsSelected, selectScenarios, type Scenario } from './scenarios.js';
import { benchAssets, printAssets } from './assets.js';
import { benchFanout, type FanoutSettings } from './fanout.js';
import { benchCache } from './cache.js';
import { benchWorkers } from './workers.js';
import { benchReplicas } from './replica-reads.js';
import type { ServerCounters } from './server.js';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(BENCH_DIR, '..');
const BUILD_DIR = path.join(BENCH_DIR, '.build', 'bench');
const RESULTS_DIR = path.join(BENCH_DIR, 'results');
const PROFILES_DIR = path.join(RESULTS_DIR, 'profiles');

/** Requests sent one by one before loading: to warm up, and to count statements per request. */
const WARMUP_REQUESTS = 5;
const COUNTED_REQUESTS = 20;
/** Load rounds per side and scenario (at most one per second of BENCH_DURATION). */
const ROUNDS_MAX = 5;

interface Settings {
  databases: DbClient[];
  duration: number;
  /** Seconds of unmeasured load per side before a scenario's rounds (BENCH_WARMUP_SECONDS; 0 = none). */
  warmup: number;
  connections: number;
  /** Scale mode: the article count (null = the usual load bench). */
  rows: number | null;
  /** Fan-out mode (`--fanout`): realtime subscribers instead of the load scenarios. */
  fanout: FanoutSettings | null;
  /** Cache mode (`--cache`): the response cache on against off (bench/cache.ts). */
  cache: boolean;
  /** Workers mode (`--workers`): WORKERS=1 against WORKERS=2 (bench/workers.ts). */
  workers: boolean;
  scenarios: Scenario[];
  /** The assets scenario (bench/assets.ts): null = not selected, else its count of fresh transforms one at a time. */
  assetsFresh: number | null;
  /** Scale mode: the ids of the scale scenarios to run (BENCH_SCENARIOS; null = all). */
  scaleIds: string[] | null;
  profile: boolean;
}

function readSettings(env: NodeJS.ProcessEnv, argv: string[]): Settings {
  const rowsAt = argv.indexOf('--rows');
  const rowsArg = rowsAt >= 0 ? argv[rowsAt + 1] : undefined;
  const unknownArg = argv.find(
    (a, i) =>
      a !== '--rows' && a !== '--fanout' && a !== '--cache' && a !== '--workers' && !(rowsAt >= 0 && i === rowsAt + 1),
  );
  if (unknownArg) throw new Error(`unknown argument ${unknownArg} (only --rows N, --fanout, --cache or --workers)`);
  const fanout = argv.includes('--fanout');
  if (fanout && rowsAt >= 0) throw new Error('--fanout and --rows are separate modes');
  if (rowsAt >= 0 && !(Number.isInteger(Number(rowsArg)) && Number(rowsArg) >= 1000))
    throw new Error('--rows needs an article count of at least 1000');
  return {
    databases: databasesFrom(env.BENCH_DB ?? 'sqlite', env),
    duration: positiveInt(env, 'BENCH_DURATION', 10),
    warmup: nonNegativeInt(env, 'BENCH_WARMUP_SECONDS', 2),
    connections: positiveInt(env, 'BENCH_CONNECTIONS', 10),
    rows: rowsAt >= 0 ? Number(rowsArg) : null,
    cache: argv.includes('--cache'),
    workers: argv.includes('--workers'),
    fanout: fanout
      ? {
          subscribers: positiveInt(env, 'BENCH_FANOUT_SUBSCRIBERS', 1000),
          rate: positiveInt(env, 'BENCH_FANOUT_RATE', 100),
          duration: positiveInt(env, 'BENCH_DURATION', 10),
        }
      : null,
    // The scale mode has scenarios of its own (bench/scale.ts), checked once their list is built.
    scenarios: rowsAt >= 0 ? [] : selectScenarios(env.BENCH_SCENARIOS),
    assetsFresh: rowsAt < 0 && assetsSelected(env.BENCH_SCENARIOS) ? assetsFresh(env) : null,
    scaleIds: rowsAt >= 0 ? scaleIdsFrom(env.BENCH_SCENARIOS) : null,
    profile: env.BENCH_PROFILE === '1' || env.BENCH_PROFILE === 'true',
  };
}

function databasesFrom(value: string, env: NodeJS.ProcessEnv): DbClient[] {
  const names: Record<string, DbClient> = {
    sqlite: 'sqlite3',
    sqlite3: 'sqlite3',
    pg: 'pg',
    postgres: 'pg',
    mysql: 'mysql',
    mariadb: 'mysql',
  };
  const available = (client: DbClient) =>
    client === 'sqlite3' || Boolean(client === 'pg' ? env.TEST_PG_URL : env.TEST_MYSQL_URL);
  if (value === 'all') return (['sqlite3', 'pg', 'mysql'] as DbClient[]).filter(available);
  const clients = value.split(',').map((name) => {
    const client = names[name.trim()];
    if (!client) throw new Error(`BENCH_DB: unknown database ${name} (sqlite, pg, mysql or all)`);
    if (!available(client))
      throw new Error(`BENCH_DB=${name} needs ${client === 'pg' ? 'TEST_PG_URL' : 'TEST_MYSQL_URL'}`);
    return client;
  });
  return [...new Set(clients)];
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, not ${raw}`);
  return value;
}

/** Fresh widths from 1000 up: at most 1000 of them keeps every width within ASSETS_TRANSFORM_IMAGE_MAX_DIMENSION. */
function assetsFresh(env: NodeJS.ProcessEnv): number {
  const fresh = positiveInt(env, 'BENCH_ASSETS_FRESH', 10);
  if (fresh > 1000) throw new Error(`BENCH_ASSETS_FRESH must be at most 1000, not ${fresh}`);
  return fresh;
}

function nonNegativeInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  return raw === '0' ? 0 : positiveInt(env, name, fallback);
}

/** The two servers run as plain JavaScript (a TypeScript loader would add its own thread and tens of MB to the RSS). */
function buildServers(): void {
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const built = spawnSync(process.execPath, [tsc, '-p', path.join(BENCH_DIR, 'tsconfig.servers.json')], {
    stdio: 'inherit',
    timeout: 300_000,
  });
  if (built.status !== 0) throw new Error('building bench/server.ts and bench/ceiling.ts failed');
  // src/version.ts reads the package.json above src/; the copy also makes the built tree an ES-module package.
  copyFileSync(path.join(ROOT, 'package.json'), path.join(BENCH_DIR, '.build', 'package.json'));
}

// ---- cleanup, also on Ctrl-C ------------------------------------------------------------------------------------

const cleanups = new Set<() => Promise<void>>();

async function cleanUp(): Promise<void> {
  for (const cleanup of [...cleanups].reverse()) {
    cleanups.delete(cleanup);
    await cleanup().catch((error) => console.error(`cleanup: ${error instanceof Error ? error.message : error}`));
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping servers and dropping the bench database`);
    void cleanUp().finally(() => process.exit(130));
  });
}

/** Registers a stop step for Ctrl-C; the returned function runs it (once) on the normal path. */
function guard(stop: () => Promise<void>): () => Promise<void> {
  cleanups.add(stop);
  return async () => {
    if (cleanups.delete(stop)) await stop();
  };
}

// ---- one database ------------------------------------------------------------------------------------------------

async function benchDatabase(client: DbClient, settings: Settings): Promise<BenchReport> {
  const loadAverageBefore = os.loadavg()[0]!;
  const label = clientLabel(client);
  const startedAt = new Date().toISOString();
  console.log(`\n== ${label}: generating the dataset`);
  const t0 = performance.now();
  const testDb = await createBenchDatabase(client);
  const dropDb = guard(() => testDb.drop());
  try {
    const rows = await generateDataset(testDb, DEFAULT_SIZE);
    const report: BenchReport = {
      database: label,
      startedAt,
      commit: gitCommit(),
      node: process.version,
      cpus: os.cpus().length,
      loadAverageBefore,
      settings: {
        durationSeconds: settings.duration,
        warmupSeconds: settings.warmup,
        connections: settings.connections,
      },
      dataset: { rows, seconds: seconds(t0) },
      strataMaxRssMb: null,
      scenarios: [],
    };
    console.log(
      `   ${Object.values(rows)
        .reduce((a, b) => a + b, 0)
        .toLocaleString('en-US')} rows in ${report.dataset.seconds} s`,
    );

    // Uploads and their variants go to a folder of this run's own, removed with the database.
    const uploads = mkdtempSync(path.join(os.tmpdir(), 'strata-bench-uploads-'));
    const removeUploads = guard(async () => rmSync(uploads, { recursive: true, force: true }));
    const env = { ...strataEnv(testDb), STORAGE_LOCAL_ROOT: uploads };
    await bootstrapWithRelations(env);
    // BENCH_PROFILE=1: a V8 CPU profile of Strata over all its scenarios, written when it stops.
    const execArgv = settings.profile ? ['--cpu-prof', '--cpu-prof-dir', PROFILES_DIR] : [];
    const strata = await Child.start('strata', path.join(BUILD_DIR, 'server.js'), env, { execArgv });
    const stopStrata = guard(() => strata.stop());
    const ceiling = await Child.start('ceiling', path.join(BUILD_DIR, 'ceiling.js'), ceilingEnv(testDb));
    const stopCeiling = guard(() => ceiling.stop());
    try {
      const strataBase = `http://127.0.0.1:${await strata.call<number>('listen')}`;
      const ceilingBase = `http://127.0.0.1:${await ceiling.call<number>('listen')}`;
      const servers = { strata, ceiling, strataBase, ceilingBase };
      for (const scenario of settings.scenarios) report.scenarios.push(await runScenario(scenario, servers, settings));
      if (settings.assetsFresh !== null) {
        const { duration, connections } = settings;
        report.assets = await benchAssets(strata, strataBase, { duration, connections, fresh: settings.assetsFresh });
      }
      report.strataMaxRssMb = (await strata.call<ServerCounters>('read')).maxRssMb;
    } finally {
      await stopCeiling();
      await stopStrata();
      await removeUploads();
      if (settings.profile)
        console.log(
          `   CPU profile of Strata in ${path.relative(process.cwd(), PROFILES_DIR)}/ (open in Chrome DevTools)`,
        );
    }
    return report;
  } finally {
    await dropDb();
  }
}

/**
 * What Strata reads from the environment: the bench database, a fixed admin token, no request logs, no rate limiter
 * (all the load comes from one address) and no pressure guard (a closed-loop load keeps the event loop busy by
 * design, and on SQLite the queries run on it: the guard would answer 503 instead of measuring). Either stays on
 * when the bench's environment sets RATE_LIMITER_ENABLED / PRESSURE_LIMITER_ENABLED.
 */
function strataEnv(testDb: TestDb): Record<string, string> {
  return {
    ...testDb.env,
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    ADMIN_TOKEN: ADMIN.token,
    SECRET: 'strata-bench-secret-0123456789abcdef',
    LOG_LEVEL: 'silent',
    RATE_LIMITER_ENABLED: process.env.RATE_LIMITER_ENABLED ?? 'false',
    PRESSURE_LIMITER_ENABLED: process.env.PRESSURE_LIMITER_ENABLED ?? 'false',
  };
}

function ceilingEnv(testDb: TestDb): Record<string, string> {
  const { DB_CLIENT, DB_FILENAME, DB_CONNECTION_STRING } = testDb.env;
  return Object.fromEntries(
    Object.entries({ DB_CLIENT, DB_FILENAME, DB_CONNECTION_STRING }).filter(([, v]) => v !== undefined),
  ) as Record<string, string>;
}

/** Installs Strata's tables and the fixture's relational metadata (o2m, m2m, m2a), here, before the server starts. */
async function bootstrapWithRelations(env: Record<string, string>): Promise<void> {
  const context = await createAppContext(readConfig(env), { bootstrap: true });
  try {
    await insertFixtureMeta(context);
  } finally {
    await context.close();
  }
}

interface Servers {
  strata: Child;
  ceiling: Child;
  strataBase: string;
  ceilingBase: string;
}

async function runScenario(scenario: Scenario, servers: Servers, settings: Settings): Promise<ScenarioResult> {
  const { strata, ceiling } = servers;
  const headers = { authorization: `Bearer ${ADMIN.token}` };
  const loadSettings: LoadSettings = { duration: settings.duration, connections: settings.connections, headers };
  const url = servers.strataBase + scenario.path;

  // The statements of exactly one request (for the ceiling), then the count over a fixed number of requests.
  let probeErrors = 0;
  const probeStrata = async () => {
    const answer = await probe(url, headers);
    if (answer.status < 200 || answer.status > 299) probeErrors++;
    return answer;
  };
  await strata.call('mark');
  const first = await probeStrata();
  const once = await strata.call<ServerCounters>('read');
  for (let i = 1; i < WARMUP_REQUESTS; i++) await probeStrata();
  await strata.call('mark');
  for (let i = 0; i < COUNTED_REQUESTS; i++) await probeStrata();
  const counted = await strata.call<ServerCounters>('read');
  const ok = first.status >= 200 && first.status < 300;

  // The ceiling replays the statements of exactly one request; it is warmed up before the loads.
  const ceilingUrl = servers.ceilingBase + scenario.path;
  let replay: Probe | null = null;
  if (ok && once.captured.length > 0) {
    await ceiling.call('route', { path: scenario.path, statements: once.captured });
    replay = await probe(ceilingUrl);
    for (let i = 1; i < WARMUP_REQUESTS; i++) await probe(ceilingUrl);
  }

  // Strata and the ceiling are loaded in alternating rounds, so that both meet the same load from other work on a
  // shared machine (one long run each would compare two different minutes of it).
  const rounds = Math.min(ROUNDS_MAX, settings.duration);
  const roundSettings: LoadSettings = {
    ...loadSettings,
    duration: Math.max(1, Math.round(settings.duration / rounds)),
  };
  // Both sides first take load unmeasured: five probes leave V8 compiling the hot path during the first round, and
  // Strata has far more code to compile (Fastify, auth, the read engine) than the ceiling, so without this the first
  // scenario's ratio measured the JIT's warm-up as much as the request path (docs/design/benchmark-method.md).
  if (settings.warmup > 0) {
    const warmup = { ...roundSettings, duration: settings.warmup };
    await load(url, warmup);
    if (replay) await load(ceilingUrl, { ...warmup, headers: {} });
  }
  const strataRounds: LoadResult[] = [];
  const ceilingRounds: LoadResult[] = [];
  await strata.call('mark');
  await ceiling.call('mark');
  for (let round = 0; round < rounds; round++) {
    strataRounds.push(await load(url, roundSettings));
    if (replay) ceilingRounds.push(await load(ceilingUrl, { ...roundSettings, headers: {} }));
  }
  const strataLoad = combineRounds(strataRounds, roundSettings.duration);
  const strataAfter = await strata.call<ServerCounters>('read');
  const result: ScenarioResult = {
    id: scenario.id,
    name: scenario.name,
    path: scenario.path,
    strata: {
      status: first.status,
      error: ok ? null : errorSummary(first.body),
      load: strataLoad,
      statementsPerRequest: strataLoad.sent > 0 ? strataAfter.statements / strataLoad.sent : null,
      readStatementsPerRequest: counted.reads / COUNTED_REQUESTS,
      probeErrors,
      peakRssMb: strataAfter.peakMb,
      cpuMsPerRequest: strataLoad.requests > 0 ? strataAfter.cpuMs / strataLoad.requests : null,
    },
    ceiling: null,
    ratio: null,
    statements: once.captured,
  };
  console.log(
    `   (${scenario.id}) Strata: ${first.status}, ${Math.round(strataLoad.reqPerSec)} req/s, ${result.strata.readStatementsPerRequest.toFixed(2)} read statements/request`,
  );

  if (replay) {
    const ceilingLoad = combineRounds(ceilingRounds, roundSettings.duration);
    const ceilingAfter = await ceiling.call<{ peakMb: number; cpuMs: number }>('read');
    const ceilingCpu = ceilingLoad.requests > 0 ? ceilingAfter.cpuMs / ceilingLoad.requests : null;
    const ceilingResult: CeilingResult = {
      status: replay.status,
      sameBody: replay.body === first.body,
      load: ceilingLoad,
      peakRssMb: ceilingAfter.peakMb,
      cpuMsPerRequest: ceilingCpu,
    };
    result.ceiling = ceilingResult;
    // Throughput of error answers is no measure: a side that answered non-2xx under load gets no ratio.
    const comparable = ceilingLoad.reqPerSec > 0 && strataLoad.non2xx === 0 && ceilingLoad.non2xx === 0;
    result.ratio = comparable ? strataLoad.reqPerSec / ceilingLoad.reqPerSec : null;
    const strataCpu = result.strata.cpuMsPerRequest;
    result.cpuRatio = comparable && strataCpu && ceilingCpu ? ceilingCpu / strataCpu : null;
    console.log(
      `   (${scenario.id}) ceiling: ${replay.status}, ${Math.round(ceilingLoad.reqPerSec)} req/s, Strata/ceiling ${result.ratio?.toFixed(2) ?? '–'}, CPU ratio ${result.cpuRatio?.toFixed(2) ?? '–'}`,
    );
  }
  return result;
}

/** Rounds of one side as one run: requests over the whole time; latency percentiles as the median round's. */
function combineRounds(rounds: LoadResult[], secondsEach: number): LoadResult {
  const sum = (pick: (r: LoadResult) => number) => rounds.reduce((total, r) => total + pick(r), 0);
  const middle = (pick: (r: LoadResult) => number) =>
    rounds.map(pick).sort((x, y) => x - y)[Math.floor(rounds.length / 2)] ?? 0;
  return {
    reqPerSec: rounds.length ? sum((r) => r.requests) / (rounds.length * secondsEach) : 0,
    p50Ms: middle((r) => r.p50Ms),
    p99Ms: middle((r) => r.p99Ms),
    requests: sum((r) => r.requests),
    sent: sum((r) => r.sent),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
  };
}

/** `CODE: message` of a Directus-style error body, or the start of whatever came back. */
function errorSummary(body: string): string {
  try {
    const error = (JSON.parse(body) as { errors?: { message?: string; extensions?: { code?: string } }[] }).errors?.[0];
    if (error) return `${error.extensions?.code ?? 'ERROR'}: ${error.message ?? ''}`;
  } catch {
    // not JSON: fall through
  }
  return body.slice(0, 200);
}

function seconds(since: number): number {
  return Math.round((performance.now() - since) / 100) / 10;
}

function gitCommit(): string | null {
  const git = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8', timeout: 5_000 });
  return git.status === 0 ? git.stdout.trim() : null;
}

// ---- scale mode ------------------------------------------------------------------------------------------------

interface Timing {
  medianMs: number;
  runs: number;
}

interface ScaleResult {
  id: string;
  name: string;
  path: string;
  index: boolean;
  status: number;
  error: string | null;
  strata: Timing | null;
  ceiling: Timing | null;
  /** Strata's rows are the ceiling's (same count, same keys in the same order). */
  sameRows: boolean | null;
  ratio: number | null;
  /** Within 1.5x of the ceiling + 15 ms. */
  withinTarget: boolean | null;
  /** Indexed scenarios: Strata's median at GROWTH_BASE_ROWS articles, this one's time over it, and ≤ GROWTH_TARGET. */
  baseMs?: number;
  growth?: number;
  withinGrowth?: boolean;
}

/**
 * Runs `a` and `b` one request at a time, in turns, for about `seconds` each (at least 5, at most 200 runs each)
 * after 2 warm-up runs each; the medians. Taking turns lets both sides meet the same load from other work.
 */
async function timeAlternating(
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
  seconds: number,
): Promise<[Timing, Timing]> {
  for (let i = 0; i < 2; i++) {
    await a();
    await b();
  }
  const times: [number[], number[]] = [[], []];
  const start = performance.now();
  while (times[0].length < 5 || (times[0].length < 200 && performance.now() - start < 2 * seconds * 1000)) {
    for (const [side, once] of [a, b].entries()) {
      const t = performance.now();
      await once();
      times[side]!.push(performance.now() - t);
    }
  }
  const median = (list: number[]): Timing => {
    list.sort((x, y) => x - y);
    return { medianMs: Math.round(list[Math.floor(list.length / 2)]! * 10) / 10, runs: list.length };
  };
  return [median(times[0]), median(times[1])];
}

function rowKeys(body: string): string | null {
  const data = (JSON.parse(body) as { data?: unknown }).data;
  if (!Array.isArray(data)) return null;
  return JSON.stringify(data.map((row: Record<string, unknown>) => row.id ?? row.status ?? null));
}

/** The table size at which the indexed scenarios are timed again, for the growth of their time with the table. */
const GROWTH_BASE_ROWS = 20_000;
/** Each indexed scenario at `rows` stays within this factor of its time at GROWTH_BASE_ROWS. */
const GROWTH_TARGET = 2;

async function benchScale(client: DbClient, settings: Settings, rows: number): Promise<void> {
  const label = clientLabel(client);
  const startedAt = new Date().toISOString();
  const loadAverageBefore = os.loadavg()[0];
  const { results, loadSeconds } = await scalePass(client, settings, rows, false);
  // The indexed scenarios at 20,000 articles, on a database of their own with the same generator and index.
  if (rows !== GROWTH_BASE_ROWS) {
    const base = await scalePass(client, settings, GROWTH_BASE_ROWS, true);
    for (const result of results.filter((r) => r.index)) {
      const small = base.results.find((r) => r.id === result.id && r.index);
      if (!small?.strata || !result.strata) continue;
      result.baseMs = small.strata.medianMs;
      result.growth = Math.round((result.strata.medianMs / small.strata.medianMs) * 100) / 100;
      result.withinGrowth = result.growth <= GROWTH_TARGET;
    }
  }
  printScaleTable(label, rows, results);
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `scale-${label}-${startedAt.replace(/[:.]/g, '-')}.json`);
  writeFileSync(
    file,
    `${JSON.stringify({ database: label, startedAt, commit: gitCommit(), node: process.version, rows, loadSeconds, loadAverageBefore, loadAverageAfter: os.loadavg()[0], results }, null, 2)}\n`,
  );
  console.log(`written to ${path.relative(process.cwd(), file)}`);
}

/** One database of `rows` articles: every scenario without and the indexed ones with the index (or only those). */
async function scalePass(
  client: DbClient,
  settings: Settings,
  rows: number,
  indexedOnly: boolean,
): Promise<{ results: ScaleResult[]; loadSeconds: number }> {
  const label = clientLabel(client);
  console.log(
    `\n== ${label}: ${rows.toLocaleString('en-US')} articles (scale mode${indexedOnly ? ', indexed scenarios only' : ''})`,
  );
  const testDb = await createBenchDatabase(client);
  const dropDb = guard(() => testDb.drop());
  try {
    let t0 = performance.now();
    await generateDataset(testDb, { ...DEFAULT_SIZE, articles: 0 });
    const k = knexFor(testDb);
    try {
      await bulkLoadArticles(k, client, {
        from: 1,
        to: rows,
        authors: DEFAULT_SIZE.authors,
        tags: DEFAULT_SIZE.tags,
        tagsPerArticle: 2,
      });
    } finally {
      await k.destroy();
    }
    const loadSeconds = seconds(t0);
    console.log(
      `   loaded in ${loadSeconds} s (${rows.toLocaleString('en-US')} articles, ${(rows * 2).toLocaleString('en-US')} article-tag links)`,
    );

    const env = strataEnv(testDb);
    await bootstrapWithRelations(env);
    const strata = await Child.start('strata', path.join(BUILD_DIR, 'server.js'), env);
    const stopStrata = guard(() => strata.stop());
    // The ceiling answers from a child process too, over loopback HTTP: both sides pay the same round trip.
    const ceiling = await Child.start('ceiling', path.join(BUILD_DIR, 'scale-ceiling.js'), ceilingEnv(testDb));
    const stopCeiling = guard(() => ceiling.stop());
    const raw = openRawDriver(testDb);
    const results: ScaleResult[] = [];
    try {
      const base = `http://127.0.0.1:${await strata.call<number>('listen')}`;
      const headers = { authorization: `Bearer ${ADMIN.token}` };
      const [author] = await raw.run('select name from authors where id = 500');
      const [tag] = await raw.run('select name from tags where id = 42');
      const names = { authorName: String(author!.name), tagName: String(tag!.name) };
      const scenarios = selectScaleScenarios(scaleScenarios(rows, names), settings.scaleIds);
      const ceilingBase = `http://127.0.0.1:${await ceiling.call<number>('listen', { rows, names })}`;
      const run = async (scenario: ScaleScenario, index: boolean) => {
        const first = await probe(base + scenario.path, headers, 120_000);
        const ok = first.status === 200;
        const result: ScaleResult = {
          id: scenario.id,
          name: scenario.name,
          path: scenario.path,
          index,
          status: first.status,
          error: ok ? null : errorSummary(first.body),
          strata: null,
          ceiling: null,
          sameRows: null,
          ratio: null,
          withinTarget: null,
        };
        if (ok) {
          const ceilingAnswer = await probe(ceilingBase + scenario.path, {}, 120_000);
          result.sameRows = ceilingAnswer.status === 200 && rowKeys(ceilingAnswer.body) === rowKeys(first.body);
          [result.strata, result.ceiling] = await timeAlternating(
            () => probe(base + scenario.path, headers, 120_000),
            () => probe(ceilingBase + scenario.path, {}, 120_000),
            settings.duration,
          );
          result.ratio = Math.round((result.strata.medianMs / result.ceiling.medianMs) * 100) / 100;
          result.withinTarget = result.strata.medianMs <= 1.5 * result.ceiling.medianMs + 15;
        }
        const timing = (t: Timing | null) => (t ? `${t.medianMs} ms` : '–');
        console.log(
          `   (${scenario.id}${index ? ', index' : ''}) Strata ${first.status} ${timing(result.strata)}, ceiling ${timing(result.ceiling)}, ratio ${result.ratio ?? '–'}${result.sameRows === false ? ' (rows differ)' : ''}`,
        );
        results.push(result);
      };
      if (!indexedOnly) for (const scenario of scenarios) await run(scenario, false);
      t0 = performance.now();
      await raw.run('create index articles_published_at_index on articles (published_at)');
      console.log(`   index on published_at created in ${seconds(t0)} s`);
      for (const scenario of scenarios.filter((s) => s.indexed)) await run(scenario, true);
    } finally {
      await raw.close();
      await stopCeiling();
      await stopStrata();
    }
    return { results, loadSeconds };
  } finally {
    await dropDb();
  }
}

/** BENCH_SCENARIOS in scale mode, checked before any row is loaded; null = every scale scenario. */
function scaleIdsFrom(list: string | undefined): string[] | null {
  if (!list) return null;
  const ids = list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const known = scaleScenarios(GROWTH_BASE_ROWS, { authorName: '', tagName: '' }).map((s) => s.id);
  const unknown = ids.filter((id) => !known.includes(id));
  if (unknown.length)
    throw new Error(`BENCH_SCENARIOS: unknown scale scenario ${unknown.join(', ')} (known: ${known.join(', ')})`);
  return ids;
}

function selectScaleScenarios(all: ScaleScenario[], ids: string[] | null): ScaleScenario[] {
  return ids ? all.filter((s) => ids.includes(s.id)) : all;
}

function printScaleTable(label: string, rows: number, results: ScaleResult[]): void {
  console.log(
    `\n${label}, ${rows.toLocaleString('en-US')} articles: median ms of one request at a time over loopback HTTP (ceiling: hand-written SQL on the raw driver behind bare node:http, in a child process as Strata)`,
  );
  console.log(
    `| scenario | index on published_at | Strata ms | ceiling ms | Strata/ceiling | ≤ 1.5x + 15 ms | Strata ms at ${GROWTH_BASE_ROWS.toLocaleString('en-US')} | growth (≤ ${GROWTH_TARGET}x) |`,
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    const cell = (t: Timing | null) => (t ? String(t.medianMs) : '–');
    const name = r.error
      ? `${r.name} (${r.status} ${r.error})`
      : `${r.name}${r.sameRows === false ? ' (rows differ)' : ''}`;
    const growth = r.growth === undefined ? '–' : `${r.growth}${r.withinGrowth ? '' : ' ✗'}`;
    console.log(
      `| (${r.id}) ${name} | ${r.index ? 'yes' : 'no'} | ${cell(r.strata)} | ${cell(r.ceiling)} | ${r.ratio ?? '–'} | ${r.withinTarget === null ? '–' : r.withinTarget ? 'yes' : 'no'} | ${r.baseMs ?? '–'} | ${growth} |`,
    );
  }
}

// ---- main --------------------------------------------------------------------------------------------------------

try {
  if (process.argv.includes('--replicas')) {
    // Its own mode: a primary and a replica made for the run, on PostgreSQL only (bench/replica-reads.ts).
    await benchReplicas({
      duration: positiveInt(process.env, 'BENCH_DURATION', 10),
      connections: positiveInt(process.env, 'BENCH_CONNECTIONS', 10),
    });
    process.exit(0);
  }
  const settings = readSettings(process.env, process.argv.slice(2));
  buildServers();
  for (const client of settings.databases) {
    if (settings.fanout) {
      const profiles = settings.profile ? PROFILES_DIR : null;
      await benchFanout(
        client,
        settings.fanout,
        { build: BUILD_DIR, results: RESULTS_DIR },
        guard,
        strataEnv,
        profiles,
      );
      continue;
    }
    if (settings.cache) {
      const { duration, warmup, connections } = settings;
      const writes = positiveInt(process.env, 'BENCH_CACHE_WRITES', 50);
      const parts = { build: BUILD_DIR, results: RESULTS_DIR, guard, strataEnv, prepare: bootstrapWithRelations };
      await benchCache(client, { duration, warmup, connections, writes }, parts);
      continue;
    }
    if (settings.workers) {
      const { duration, warmup, connections } = settings;
      const parts = {
        buildRoot: path.dirname(BUILD_DIR),
        results: RESULTS_DIR,
        guard,
        strataEnv,
        prepare: bootstrapWithRelations,
      };
      await benchWorkers(client, { duration, warmup, connections }, parts);
      continue;
    }
    if (settings.rows !== null) {
      await benchScale(client, settings, settings.rows);
      continue;
    }
    const report = await benchDatabase(client, settings);
    printReport(report);
    if (report.assets) printAssets(report.assets);
    console.log(`written to ${path.relative(process.cwd(), writeReport(report, RESULTS_DIR))}`);
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  await cleanUp();
  process.exitCode = 1;
}
