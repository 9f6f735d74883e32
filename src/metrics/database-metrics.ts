/**
 * The database's figures: statement durations by kind (read, write, ddl, transaction: never by SQL text, so the
 * series stay few), acquire waits, and the pools' use read at scrape time through `Database.poolUse` (knex's pool,
 * public counters only: docs/design/database-pools.md) and `readThreadUse` (SQLite's read threads, as a pool of its
 * own). Pools are labelled: `primary` (the pool every write and, on PostgreSQL and MariaDB, every read takes; on
 * SQLite the writer's connection) and `read-threads`.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Database, DatabaseObserver, PoolUse } from '../db/connection.js';

/** Seconds: a cached one-row read takes ~0.1 ms on SQLite, a timed-out statement DB_STATEMENT_TIMEOUT (30 s). */
const STATEMENT_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5, 30];
const ACQUIRE_BUCKETS = [0.00001, 0.0001, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30];

function poolGauges(registry: Registry, pools: () => [string, PoolUse][]): void {
  const gauge = (name: string, help: string, read: (use: PoolUse) => number, states?: boolean) =>
    new Gauge({
      name,
      help,
      labelNames: states ? ['pool', 'state'] : ['pool'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [pool, use] of pools()) {
          if (states) {
            this.set({ pool, state: 'used' }, use.used);
            this.set({ pool, state: 'free' }, use.free);
          } else this.set({ pool }, read(use));
        }
      },
    });
  gauge('strata_db_pool_connections', 'Connections of the pool, lent out (used) or idle (free)', () => 0, true);
  gauge('strata_db_pool_max_connections', 'Connections the pool may hold', (use) => use.max);
  gauge('strata_db_pool_pending_acquires', 'Statements waiting for a connection of the pool', (use) => use.pending);
}

/** The pools of `db` now, by label. */
function poolsOf(db: Database): [string, PoolUse][] {
  const pools: [string, PoolUse][] = [];
  const primary = db.poolUse();
  if (primary) pools.push(['primary', primary]);
  const threads = db.readThreadUse();
  if (threads)
    pools.push([
      'read-threads',
      { used: threads.busy, free: threads.max - threads.busy, pending: threads.queued, max: threads.max },
    ]);
  return pools;
}

/** Registers the database's figures; returns the observer to hand to `db.observe`. */
export function databaseMetrics(registry: Registry, db: Database): DatabaseObserver {
  poolGauges(registry, () => poolsOf(db));
  const statements = new Histogram({
    name: 'strata_db_statement_duration_seconds',
    help: 'Statements run by Strata, by kind (read, write, ddl, transaction), from the call to the answer',
    labelNames: ['kind'],
    buckets: STATEMENT_BUCKETS,
    registers: [registry],
  });
  const failures = new Counter({
    name: 'strata_db_statement_failures_total',
    help: 'Statements that failed (refused writes, timeouts, lost connections), by kind',
    labelNames: ['kind'],
    registers: [registry],
  });
  const waits = new Histogram({
    name: 'strata_db_pool_acquire_wait_seconds',
    help: 'Time spent waiting for a connection of the pool',
    labelNames: ['pool'],
    buckets: ACQUIRE_BUCKETS,
    registers: [registry],
  });
  const primaryWaits = waits.labels({ pool: 'primary' });
  const byKind = new Map(
    (['read', 'write', 'ddl', 'transaction'] as const).map((kind) => [kind, statements.labels({ kind })]),
  );
  return {
    statement(kind, seconds, failed) {
      byKind.get(kind)!.observe(seconds);
      if (failed) failures.inc({ kind });
    },
    acquired(seconds) {
      primaryWaits.observe(seconds);
    },
  };
}
