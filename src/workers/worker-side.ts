/**
 * What a worker of several (WORKERS > 1) does beyond serving as a single process would: it skips the bootstrap its
 * primary ran, names itself on each answer (`X-Strata-Worker: <pid>`, for tests and operators to see which worker
 * answered), counts the restarts its primary reports, and stops when its primary goes away.
 */
import cluster from 'node:cluster';
import type { Metrics } from '../metrics/metrics.js';

export const WORKER_HEADER = 'x-strata-worker';

/** Whether this process is a worker of several (forked by workers/supervisor.ts). */
export function isClusterWorker(workers: number): boolean {
  return workers > 1 && cluster.isWorker;
}

/** Keeps `metrics`' restart count at the primary's total (the primary counts; it has no /metrics of its own). */
export function followRestarts(metrics: Metrics): void {
  let known = 0;
  process.on('message', (message: unknown) => {
    const total = (message as { strata?: unknown; total?: unknown } | null)?.total;
    if ((message as { strata?: unknown } | null)?.strata !== 'restarts' || typeof total !== 'number') return;
    if (total > known) metrics.workerRestarted(total - known);
    known = Math.max(known, total);
  });
}

/** Runs `stop` when the primary is gone (killed): a worker never serves on alone. */
export function stopWithPrimary(stop: () => void): void {
  process.once('disconnect', stop);
}
