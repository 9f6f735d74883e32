/**
 * `npm run bench -- --workers`: one Strata process against WORKERS=2 (docs/design/workers.md), on the same run and
 * machine. Both are real `strata start` processes (the cluster needs its own entry point, not the bench's IPC server),
 * built as plain JavaScript with the bench's servers, over one bench database; they are loaded in alternating rounds
 * on scenarios (a)-(d). Reports req/s of each, their ratio and the load average around the run; writes
 * bench/results/workers-<db>-<timestamp>.json. The load generator runs in this process, on the same cores.
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
import { load, probe, type LoadResult } from './load.js';
import { SCENARIOS } from './scenarios.js';

export interface WorkersSettings {
  duration: number;
  warmup: number;
  connections: number;
}

interface WorkersRow {
  id: string;
  name: string;
  one: number;
  two: number;
  ratio: number | null;
  non2xx: number;
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
  console.log(`\n== ${label}: WORKERS=1 vs WORKERS=2`);
  const testDb = await createBenchDatabase(client);
  const dropDb = parts.guard(() => testDb.drop());
  try {
    await generateDataset(testDb, DEFAULT_SIZE);
    const env = parts.strataEnv(testDb);
    await parts.prepare(env);
    const one = await startStrata(parts, env, 1);
    const stopOne = parts.guard(one.stop);
    const two = await startStrata(parts, env, 2);
    const stopTwo = parts.guard(two.stop);
    try {
      const loadBefore = os.loadavg();
      const rows: WorkersRow[] = [];
      for (const scenario of SCENARIOS.filter((s) => IDS.includes(s.id)))
        rows.push(await compare(scenario.id, scenario.name, scenario.path, [one.base, two.base], settings));
      const loadAfter = os.loadavg();
      printTable(label, rows, loadBefore[0]!, loadAfter[0]!);
      mkdirSync(parts.results, { recursive: true });
      const file = path.join(
        parts.results,
        `workers-${label.toLowerCase()}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`,
      );
      const machine = { cores: os.availableParallelism(), loadBefore, loadAfter };
      writeFileSync(file, JSON.stringify({ database: label, settings, machine, rows }, null, 2));
      console.log(`written to ${path.relative(process.cwd(), file)}`);
    } finally {
      await stopTwo();
      await stopOne();
    }
  } finally {
    await dropDb();
  }
}

async function compare(
  id: string,
  name: string,
  urlPath: string,
  bases: [string, string],
  settings: WorkersSettings,
): Promise<WorkersRow> {
  const round = {
    duration: Math.max(1, Math.round(settings.duration / ROUNDS)),
    connections: settings.connections,
    headers,
  };
  for (const base of bases) {
    const answer = await probe(base + urlPath, headers);
    if (answer.status !== 200) throw new Error(`(${id}) answered ${answer.status}: ${answer.body.slice(0, 200)}`);
    if (settings.warmup > 0) await load(base + urlPath, { ...round, duration: settings.warmup });
  }
  const rounds: [LoadResult[], LoadResult[]] = [[], []];
  for (let i = 0; i < ROUNDS; i++)
    for (const side of [0, 1] as const) rounds[side].push(await load(bases[side] + urlPath, round));
  const rate = (results: LoadResult[]) =>
    results.reduce((t, r) => t + r.requests, 0) / (results.length * round.duration);
  const [one, two] = [rate(rounds[0]), rate(rounds[1])];
  const row: WorkersRow = {
    id,
    name,
    one: Math.round(one),
    two: Math.round(two),
    ratio: one > 0 ? Math.round((two / one) * 100) / 100 : null,
    non2xx: [...rounds[0], ...rounds[1]].reduce((t, r) => t + r.non2xx, 0),
  };
  console.log(`   (${id}) 1 worker ${row.one} req/s, 2 workers ${row.two} req/s, x${row.ratio}`);
  return row;
}

function printTable(label: string, rows: WorkersRow[], loadBefore: number, loadAfter: number): void {
  console.log(
    `\n${label}: WORKERS=1 vs WORKERS=2 (req/s, ${ROUNDS} alternating rounds each; ${os.availableParallelism()} cores; load average ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after)`,
  );
  console.log('| scenario | 1 worker req/s | 2 workers req/s | 2/1 |');
  console.log('|---|---|---|---|');
  for (const r of rows)
    console.log(
      `| (${r.id}) ${r.name} | ${r.one} | ${r.two} | ${r.ratio ?? '–'}${r.non2xx ? ` (${r.non2xx} non-2xx)` : ''} |`,
    );
}
