/**
 * `npm run bench -- --cache`: the response cache on against off (docs/design/response-cache.md). Two Strata children
 * over one bench database, one with CACHE_ENABLED, loaded in alternating rounds on scenarios (a)-(d) (and (b) through
 * GraphQL), then on (a) while a writer changes the articles it lists (BENCH_CACHE_WRITES per second, open loop): the
 * write-heavy mix. Reports req/s of each side, their ratio and the cached side's hit rate; writes
 * bench/results/cache-<db>-<timestamp>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { DbClient } from '../src/config/config.js';
import { ADMIN } from '../test/helpers/test-app.js';
import { clientLabel, type TestDb } from '../test/helpers/test-db.js';
import { createBenchDatabase, DEFAULT_SIZE, generateDataset } from './dataset.js';
import { Child } from './ipc.js';
import { load, probe, type LoadResult } from './load.js';
import { SCENARIOS } from './scenarios.js';
import { loadMix, READS_PER_WRITE } from './cache-mix.js';
import type { ServerCounters } from './server.js';

export interface CacheSettings {
  duration: number;
  warmup: number;
  connections: number;
  /** Writes per second in the write-heavy mix. */
  writes: number;
  /** The scenario ids to run (BENCH_SCENARIOS, `a+w` for the write mix); null: all. */
  ids: string[] | null;
  /** A folder for a V8 CPU profile of the cached side (BENCH_PROFILE), or null. */
  profiles: string | null;
}

interface CacheRow {
  id: string;
  name: string;
  uncached: number;
  cached: number;
  ratio: number | null;
  hitRate: number | null;
  /** CPU time of each Strata process per answer, ms (its own time: on SQLite the database's work included). */
  cpuMsOff: number | null;
  cpuMsOn: number | null;
  non2xx: number;
  writesDone?: number;
}

type Guard = (stop: () => Promise<void>) => () => Promise<void>;

export interface CacheBenchParts {
  build: string;
  results: string;
  guard: Guard;
  strataEnv: (db: TestDb) => Record<string, string>;
  prepare: (env: Record<string, string>) => Promise<void>;
}

const IDS = ['a', 'b', 'b-gql', 'c', 'd'];
/** `writes` of `compare`: the closed-loop mix of 1 write per READS_PER_WRITE reads (bench/cache-mix.ts). */
const MIX = -1;
const ROUNDS = 3;
const headers = { authorization: `Bearer ${ADMIN.token}` };

export async function benchCache(client: DbClient, settings: CacheSettings, parts: CacheBenchParts): Promise<void> {
  const label = clientLabel(client);
  console.log(`\n== ${label}: response cache on vs off`);
  const testDb = await createBenchDatabase(client);
  const dropDb = parts.guard(() => testDb.drop());
  try {
    await generateDataset(testDb, DEFAULT_SIZE);
    const env = parts.strataEnv(testDb);
    await parts.prepare(env);
    // A generous start-up bound: on a machine shared with other work, start-up alone has taken over a minute.
    const off = await Child.start('strata', path.join(parts.build, 'server.js'), env, { timeoutMs: 180_000 });
    const stopOff = parts.guard(() => off.stop());
    const execArgv = settings.profiles ? ['--cpu-prof', '--cpu-prof-dir', settings.profiles] : [];
    const on = await Child.start(
      'strata',
      path.join(parts.build, 'server.js'),
      { ...env, CACHE_ENABLED: 'true' },
      { execArgv, timeoutMs: 180_000 },
    );
    const stopOn = parts.guard(() => on.stop());
    try {
      const bases = {
        off: `http://127.0.0.1:${await off.call<number>('listen')}`,
        on: `http://127.0.0.1:${await on.call<number>('listen')}`,
      };
      const rows: CacheRow[] = [];
      const wanted = (id: string) => settings.ids === null || settings.ids.includes(id);
      for (const scenario of SCENARIOS.filter((s) => IDS.includes(s.id) && wanted(s.id)))
        rows.push(await compare(scenario.id, scenario.name, scenario.path, bases, { off, on }, settings, 0));
      const a = SCENARIOS.find((s) => s.id === 'a')!;
      if (wanted('a+w'))
        rows.push(
          await compare(
            'a+w',
            `(a) with ${settings.writes} writes/s`,
            a.path,
            bases,
            { off, on },
            settings,
            settings.writes,
          ),
        );
      if (wanted('mix'))
        rows.push(
          await compare('mix', `(a) 1 write per ${READS_PER_WRITE} reads`, a.path, bases, { off, on }, settings, MIX),
        );
      printTable(label, rows);
      mkdirSync(parts.results, { recursive: true });
      const file = path.join(
        parts.results,
        `cache-${label.toLowerCase()}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`,
      );
      writeFileSync(file, JSON.stringify({ database: label, settings, rows }, null, 2));
      console.log(`written to ${path.relative(process.cwd(), file)}`);
    } finally {
      await stopOn();
      await stopOff();
    }
  } finally {
    await dropDb();
  }
}

async function compare(
  id: string,
  name: string,
  urlPath: string,
  bases: { off: string; on: string },
  children: { off: Child; on: Child },
  settings: CacheSettings,
  writes: number,
): Promise<CacheRow> {
  const round = {
    duration: Math.max(1, Math.round(settings.duration / ROUNDS)),
    connections: settings.connections,
    headers,
  };
  for (const base of [bases.off, bases.on]) {
    const answer = await probe(base + urlPath, headers);
    if (answer.status !== 200) throw new Error(`(${id}) answered ${answer.status}: ${answer.body.slice(0, 200)}`);
    if (settings.warmup > 0) await load(base + urlPath, { ...round, duration: settings.warmup });
  }
  const offRounds: LoadResult[] = [];
  const onRounds: LoadResult[] = [];
  let writesDone = 0;
  await children.on.call('mark');
  await children.off.call('mark');
  for (let i = 0; i < ROUNDS; i++) {
    for (const [base, into] of [
      [bases.off, offRounds],
      [bases.on, onRounds],
    ] as const) {
      const writer = writes > 0 ? startWriter(base, writes) : null;
      into.push(writes === MIX ? await loadMix(base, urlPath, round) : await load(base + urlPath, round));
      if (writer) writesDone += await writer.stop();
    }
  }
  const counters = await children.on.call<ServerCounters>('read');
  const offCounters = await children.off.call<ServerCounters>('read');
  const lookups = counters.cacheHits + counters.cacheMisses;
  const rate = (rounds: LoadResult[]) => rounds.reduce((t, r) => t + r.requests, 0) / (rounds.length * round.duration);
  const uncached = rate(offRounds);
  const cached = rate(onRounds);
  const cpuPer = (cpuMs: number, rounds: LoadResult[]) => {
    const answers = rounds.reduce((t, r) => t + r.requests, 0);
    return answers > 0 ? Math.round((cpuMs / answers) * 1000) / 1000 : null;
  };
  const row: CacheRow = {
    id,
    name,
    uncached: Math.round(uncached),
    cached: Math.round(cached),
    ratio: uncached > 0 ? Math.round((cached / uncached) * 100) / 100 : null,
    hitRate: lookups > 0 ? Math.round((counters.cacheHits / lookups) * 1000) / 1000 : null,
    cpuMsOff: cpuPer(offCounters.cpuMs, offRounds),
    cpuMsOn: cpuPer(counters.cpuMs, onRounds),
    non2xx: [...offRounds, ...onRounds].reduce((t, r) => t + r.non2xx, 0),
    ...(writes > 0 ? { writesDone } : {}),
  };
  console.log(
    `   (${id}) off ${row.uncached} req/s, on ${row.cached} req/s, x${row.ratio}, hit rate ${row.hitRate}, CPU ms/answer off ${row.cpuMsOff} on ${row.cpuMsOn}`,
  );
  return row;
}

/** Open loop: one PATCH of one of the first 25 articles every 1/rate s, whatever the answers. */
function startWriter(base: string, perSecond: number): { stop(): Promise<number> } {
  let done = 0;
  let n = 0;
  const pending = new Set<Promise<void>>();
  const timer = setInterval(() => {
    const id = (n++ % 25) + 1;
    const sent = fetch(`${base}/items/articles/${id}`, {
      method: 'PATCH',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ views: n }),
      signal: AbortSignal.timeout(30_000),
    })
      .then(async (res) => {
        await res.arrayBuffer();
        if (res.ok) done++;
      })
      .catch(() => {})
      .finally(() => pending.delete(sent));
    pending.add(sent);
  }, 1000 / perSecond);
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all([...pending]);
      return done;
    },
  };
}

function printTable(label: string, rows: CacheRow[]): void {
  console.log(`\n${label}: response cache off vs on (req/s, ${ROUNDS} alternating rounds each)`);
  console.log('| scenario | cache off req/s | cache on req/s | on/off | hit rate | CPU ms/answer off / on |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows)
    console.log(
      `| (${r.id}) ${r.name} | ${r.uncached} | ${r.cached} | ${r.ratio ?? '–'}${r.non2xx ? ` (${r.non2xx} non-2xx)` : ''} | ${r.hitRate === null ? '–' : `${(r.hitRate * 100).toFixed(1)}%`} | ${r.cpuMsOff ?? '–'} / ${r.cpuMsOn ?? '–'} |`,
    );
}
