/**
 * `npm run bench -- --workers`: one Strata process against WORKERS=2 (docs/design/workers.md), on the same run and
 * machine. Both are real `strata start` processes (the cluster needs its own entry point, not the bench's IPC server),
 * built as plain JavaScript with the bench's servers, over one bench database; they are loaded in alternating rounds
 * on scenarios (a)-(d), once with the response cache off (each request's work: Node and the database) and once with
 * it on (hits: Node's own work alone). Reports req/s of each, their ratio, how busy the machine's cores were on each
 * side and the load average around the run; writes bench/results/workers-<db>-<timestamp>.json. The load generator
 * shares the cores: wrk when it is installed (a small part of a core), else autocannon (BENCH_LOADER picks one).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { DbClient } from '../src/config/config.js';
import { ADMIN } from '../test/helpers/test-app.js';
import { clientLabel, type TestDb } from '../test/helpers/test-db.js';
import { createBenchDatabase, DEFAULT_SIZE, generateDataset } from './dataset.js';
import { load, probe, type LoadResult, type LoadSettings } from './load.js';
import { busyPercent, cpuMark } from './machine-cpu.js';
import { SCENARIOS } from './scenarios.js';
import { wrkAvailable, wrkLoad } from './wrk.js';

export interface WorkersSettings {
  duration: number;
  warmup: number;
  connections: number;
}

interface WorkersRow {
  id: string;
  name: string;
  cache: boolean;
  one: number;
  two: number;
  ratio: number | null;
  /** Percent of the machine's cores busy while each side was loaded. */
  busyOne: number | null;
  busyTwo: number | null;
  non2xx: number;
}

type Loader = (url: string, settings: LoadSettings) => Promise<LoadResult>;

/** BENCH_LOADER=wrk|autocannon; by default wrk when installed. */
function pickLoader(): { name: string; run: Loader } {
  const wanted = process.env.BENCH_LOADER ?? (wrkAvailable() ? 'wrk' : 'autocannon');
  if (wanted === 'wrk') return { name: 'wrk', run: wrkLoad };
  if (wanted === 'autocannon') return { name: 'autocannon', run: load };
  throw new Error(`BENCH_LOADER is wrk or autocannon, not ${wanted}`);
}

type Guard = (stop: () => Promise<void>) => () => Promise<void>;

export interface WorkersBenchParts {
  /** The bench's build of the servers (bench/.build): src/cli/index.js is under it. */
  buildRoot: string;
  results: string;
  guard: Guard;
  strataEnv: (db: TestDb) => Record<string, string>;
  prepare: (env: Record<string, string>) => Promise<void>;
}

const IDS = ['a', 'b', 'c', 'd'];
const ROUNDS = 3;
const headers = { authorization: `Bearer ${ADMIN.token}` };

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

/** `strata start` with `workers`; resolves once every worker answers (each names itself in X-Strata-Worker). */
async function startStrata(parts: WorkersBenchParts, env: Record<string, string>, workers: number) {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [path.join(parts.buildRoot, 'src', 'cli', 'index.js'), 'start'], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ...env,
      HOST: '127.0.0.1',
      PORT: String(port),
      WORKERS: String(workers),
      ADMIN_APP_ENABLED: 'false',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  const seen = new Set<string>();
  for (const deadline = Date.now() + 300_000; seen.size < workers;) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`strata (WORKERS=${workers}) did not start`);
    try {
      const response = await fetch(`${base}/server/ping`, { headers: { connection: 'close' } });
      await response.text();
      if (response.ok) seen.add(response.headers.get('x-strata-worker') ?? 'single');
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await once(child, 'exit');
  };
  return { base, stop };
}

export async function benchWorkers(client: DbClient, settings: WorkersSettings, parts: WorkersBenchParts) {
  const label = clientLabel(client);
  const loader = pickLoader();
  console.log(`\n== ${label}: WORKERS=1 vs WORKERS=2 (load from ${loader.name})`);
  const testDb = await createBenchDatabase(client);
  const dropDb = parts.guard(() => testDb.drop());
  try {
    await generateDataset(testDb, DEFAULT_SIZE);
    const env = parts.strataEnv(testDb);
    await parts.prepare(env);
    const loadBefore = os.loadavg();
    const rows: WorkersRow[] = [];
    for (const cache of [false, true]) rows.push(...(await benchPair(parts, env, cache, settings, loader.run)));
    const loadAfter = os.loadavg();
    printTable(label, loader.name, rows, loadBefore[0]!, loadAfter[0]!);
    mkdirSync(parts.results, { recursive: true });
    const file = path.join(
      parts.results,
      `workers-${label.toLowerCase()}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`,
    );
    const machine = { cores: os.availableParallelism(), loadBefore, loadAfter };
    writeFileSync(file, JSON.stringify({ database: label, loader: loader.name, settings, machine, rows }, null, 2));
    console.log(`written to ${path.relative(process.cwd(), file)}`);
  } finally {
    await dropDb();
  }
}

/** One worker against two, both with the response cache off or both with it on (in memory). */
async function benchPair(
  parts: WorkersBenchParts,
  baseEnv: Record<string, string>,
  cache: boolean,
  settings: WorkersSettings,
  run: Loader,
): Promise<WorkersRow[]> {
  const env = cache ? { ...baseEnv, CACHE_ENABLED: 'true', CACHE_STORE: 'memory' } : baseEnv;
  const one = await startStrata(parts, env, 1);
  const stopOne = parts.guard(one.stop);
  const two = await startStrata(parts, env, 2);
  const stopTwo = parts.guard(two.stop);
  try {
    const rows: WorkersRow[] = [];
    for (const scenario of SCENARIOS.filter((s) => IDS.includes(s.id)))
      rows.push(await compare(scenario, cache, [one.base, two.base], settings, run));
    return rows;
  } finally {
    await stopTwo();
    await stopOne();
  }
}

async function compare(
  scenario: { id: string; name: string; path: string },
  cache: boolean,
  bases: [string, string],
  settings: WorkersSettings,
  run: Loader,
): Promise<WorkersRow> {
  const round = {
    duration: Math.max(1, Math.round(settings.duration / ROUNDS)),
    connections: settings.connections,
    headers,
  };
  for (const base of bases) {
    const answer = await probe(base + scenario.path, headers);
    if (answer.status !== 200)
      throw new Error(`(${scenario.id}) answered ${answer.status}: ${answer.body.slice(0, 200)}`);
    if (settings.warmup > 0) await run(base + scenario.path, { ...round, duration: settings.warmup });
  }
  const rounds: [LoadResult[], LoadResult[]] = [[], []];
  const busy: [number[], number[]] = [[], []];
  for (let i = 0; i < ROUNDS; i++)
    for (const side of [0, 1] as const) {
      const from = cpuMark();
      rounds[side].push(await run(bases[side] + scenario.path, round));
      const percent = busyPercent(from, cpuMark());
      if (percent !== null) busy[side].push(percent);
    }
  const rate = (results: LoadResult[]) =>
    results.reduce((t, r) => t + r.requests, 0) / (results.length * round.duration);
  const mean = (values: number[]) =>
    values.length ? Math.round(values.reduce((t, n) => t + n, 0) / values.length) : null;
  const [one, two] = [rate(rounds[0]), rate(rounds[1])];
  const row: WorkersRow = {
    id: scenario.id,
    name: scenario.name,
    cache,
    one: Math.round(one),
    two: Math.round(two),
    ratio: one > 0 ? Math.round((two / one) * 100) / 100 : null,
    busyOne: mean(busy[0]),
    busyTwo: mean(busy[1]),
    non2xx: [...rounds[0], ...rounds[1]].reduce((t, r) => t + r.non2xx, 0),
  };
  const where = cache ? ' (cache hits)' : '';
  console.log(
    `   (${row.id})${where} 1 worker ${row.one} req/s (cores ${row.busyOne}% busy), 2 workers ${row.two} req/s (${row.busyTwo}%), x${row.ratio}`,
  );
  return row;
}

function printTable(label: string, loader: string, rows: WorkersRow[], loadBefore: number, loadAfter: number): void {
  console.log(
    `\n${label}: WORKERS=1 vs WORKERS=2 (req/s, ${ROUNDS} alternating rounds each, load from ${loader}; ${os.availableParallelism()} cores; load average ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after)`,
  );
  console.log('| scenario | cache | 1 worker req/s (cores busy) | 2 workers req/s (cores busy) | 2/1 |');
  console.log('|---|---|---|---|---|');
  const busy = (percent: number | null) => (percent === null ? '' : ` (${percent}%)`);
  for (const r of rows)
    console.log(
      `| (${r.id}) ${r.name} | ${r.cache ? 'hits' : 'off'} | ${r.one}${busy(r.busyOne)} | ${r.two}${busy(r.busyTwo)} | ${r.ratio ?? '–'}${r.non2xx ? ` (${r.non2xx} non-2xx)` : ''} |`,
    );
}
