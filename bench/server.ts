/**
 * Strata as the bench runs it: a child process started by bench/run.ts, built the way `strata start` builds it
 * (context, then the Fastify app, listening on loopback), configured by the environment the bench passes. The bench
 * talks to it over IPC only — no extra route in the product — to count the SQL statements it runs, to capture the
 * text and parameters of those statements (for the ceiling), to read its peak memory, and (fan-out) when each
 * created item's change event was emitted, i.e. right after its commit.
 */
import { readConfig } from '../src/config/config.js';
import { queryBuilder } from '../src/db/connection.js';
import { createApp } from '../src/http/app.js';
import { createAppContext } from '../src/app/app-context.js';
import { answerParent, RssPeak } from './ipc.js';

export interface CapturedStatement {
  sql: string;
  params: unknown[];
}

export interface ServerCounters {
  /** Every statement since the last mark: the read engine's (Database.query) and knex's (auth, settings). */
  statements: number;
  /** The read engine's statements (Database.query) since the last mark. */
  reads: number;
  /** The read engine's statements since the last mark, in order (the first 100). */
  captured: CapturedStatement[];
  peakMb: number;
  maxRssMb: number;
  /** CPU time of the process since the last mark, ms. */
  cpuMs: number;
  /** Response cache lookups since the last mark (CACHE_ENABLED; zero otherwise). */
  cacheHits: number;
  cacheMisses: number;
}

const CAPTURE_MAX = 100;

const rss = new RssPeak();
const config = readConfig({ ...process.env, HOST: '127.0.0.1', PORT: '0' });
const context = await createAppContext(config, { bootstrap: true });
const app = createApp(context, { logger: { level: config.logLevel } });

let statements = 0;
let reads = 0;
let captured: CapturedStatement[] = [];
let cacheBase = { hits: 0, misses: 0 };
context.db.onQuery((sql, params) => {
  statements++;
  reads++;
  if (captured.length < CAPTURE_MAX) captured.push({ sql, params: [...params] });
});
queryBuilder(context.db).on('query', () => {
  statements++;
});

// Fan-out: the emit time of each created key of one collection (epoch ms, comparable across processes).
let tracked: string | null = null;
let emits: [string, number][] = [];
context.changes.listen((event) => {
  if (event.collection !== tracked || event.action !== 'create') return;
  const at = performance.timeOrigin + performance.now();
  for (const key of event.keys) emits.push([String(key), at]);
});

answerParent(
  {
    async listen() {
      await app.listen({ host: config.host, port: config.port });
      return (app.server.address() as { port: number }).port;
    },
    mark() {
      cacheBase = { ...(context.responses?.stats ?? cacheBase) };
      statements = 0;
      reads = 0;
      captured = [];
      rss.reset();
    },
    read(): ServerCounters {
      const stats = context.responses?.stats ?? cacheBase;
      const cache = { cacheHits: stats.hits - cacheBase.hits, cacheMisses: stats.misses - cacheBase.misses };
      return { statements, reads, captured, ...cache, ...rss.read() };
    },
    track(collection: string) {
      tracked = collection;
      emits = [];
    },
    emits(): [string, number][] {
      return emits;
    },
    subscriptions() {
      return context.subscriptions.stats();
    },
  },
  async () => {
    await app.close();
    await context.close();
  },
);
