/**
 * The primary of WORKERS > 1 (docs/design/workers.md): migrates and installs once, forks the workers (node:cluster
 * hands each new connection on the one port to a worker in turn), relays the bus's notices between them
 * (relay-hub.ts), keeps the rate-limit counts they share, collects their figures for /metrics (cluster-metrics.ts), replaces a worker that dies (restart-backoff.ts) and, on a
 * stop signal, lets every worker drain and close before it exits. It serves no request itself.
 */
import cluster, { type Worker } from 'node:cluster';
import { RateLimiterClusterMaster } from 'rate-limiter-flexible';
import { openDatabase } from '../app/open-database.js';
import type { StartLog } from '../app/start-log.js';
import type { Config } from '../config/config.js';
import { Database } from '../db/connection.js';
import { closeLast } from '../db/last-close.js';
import { collectForWorkers } from './cluster-metrics.js';
import { RelayHub } from './relay-hub.js';
import { RestartBackoff } from './restart-backoff.js';
import { SocketCountsHub } from './socket-counts-hub.js';
import { STOP_SIGNALS, StopRequest, type SignalSource } from './stop-signals.js';

/** Past SHUTDOWN_TIMEOUT (each worker's own bound for its connections), a worker still running is killed. */
const KILL_GRACE_MS = 5_000;

export interface WorkerRestarts {
  strata: 'restarts';
  total: number;
}

/** Bootstrap once, here, before any worker serves (the workers then open an installed, migrated database). */
async function prepareDatabase(config: Config, log: StartLog): Promise<void> {
  const db = new Database(config.db);
  try {
    await openDatabase(db, config, log, true);
  } finally {
    await db.close();
  }
}

/** Serves through `config.workers` workers until a stop signal; resolves with the exit code. */
export async function superviseWorkers(config: Config, log: StartLog, signals: SignalSource): Promise<number> {
  await prepareDatabase(config, log);
  new RateLimiterClusterMaster();
  /** Live workers by id, with when each started (cluster.workers may still list one that exited, until it disconnects). */
  const started = new Map<number, number>();
  const live = () => Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w && started.has(w.id));
  const scrapes = collectForWorkers();
  const hub = new RelayHub(live);
  const sockets = new SocketCountsHub(config);
  const backoff = new RestartBackoff();
  const stop = new StopRequest(signals);
  let restarts = 0;
  let listened = false;
  let code = 0;
  let allEnded!: () => void;
  const ended = new Promise<void>((resolve) => (allEnded = resolve));

  const tellRestarts = (worker: Worker) => {
    const message: WorkerRestarts = { strata: 'restarts', total: restarts };
    if (worker.isConnected()) worker.send(message, (error: Error | null) => void error);
  };
  const fork = () => {
    const worker = cluster.fork();
    started.set(worker.id, Date.now());
    worker.on(
      'message',
      (message: unknown) =>
        hub.receive(worker, message) || scrapes(worker, message) || sockets.receive(worker, message),
    );
  };
  cluster.on('listening', (worker) => {
    listened = true;
    tellRestarts(worker);
  });
  cluster.on('exit', (worker, exitCode, signal) => {
    hub.gone(worker);
    sockets.gone(worker);
    const lived = Date.now() - (started.get(worker.id) ?? Date.now());
    started.delete(worker.id);
    if (stop.requested) {
      if (!stoppedCleanly(exitCode, signal)) code = 1;
      if (started.size === 0) allEnded();
      return;
    }
    if (!listened) {
      // Not one worker ever served: the start failed (its reason is on stderr); trying again would fail again.
      code = 1;
      stop.request('SIGTERM');
      return;
    }
    restarts += 1;
    for (const other of live()) tellRestarts(other);
    const delay = backoff.next(lived);
    log.warn(`Worker ${worker.process.pid} ended (${signal ?? `exit code ${exitCode}`}); replacing it in ${delay} ms`);
    setTimeout(() => stop.requested || fork(), delay).unref();
  });

  stop.listen();
  for (let i = 0; i < config.workers; i++) fork();
  log.info(`Serving on ${config.host}:${config.port} with ${config.workers} workers`);
  const signal = await stop.first;
  const stopping = Date.now();
  const alive = live();
  if (alive.length === 0) allEnded();
  for (const worker of alive) worker.process.kill('SIGTERM');
  const kill = setTimeout(() => {
    for (const worker of live()) worker.process.kill('SIGKILL');
  }, config.shutdownTimeoutMs + KILL_GRACE_MS);
  kill.unref();
  await ended;
  clearTimeout(kill);
  // Every worker has closed the database: this process closes it last (SQLite: checkpoints and removes the WAL).
  await closeLast(config.db).catch((error: Error) => log.warn(`Closing the database last failed: ${error.message}`));
  log.info(`Stopped on ${signal} after ${Date.now() - stopping} ms (${alive.length} workers)`);
  stop.unlisten();
  return code;
}

/**
 * How a worker ended once the server was stopping: exit code 0, or ended by a stop signal itself. The latter is a
 * worker that had not begun to listen for one yet (it listens from the first line of its start, before it opens
 * anything: start-command.ts), so it had nothing to close. Anything else (an exit code, SIGKILL at the deadline) is not.
 */
function stoppedCleanly(exitCode: number | null, signal: string | null): boolean {
  return exitCode === 0 || (exitCode === null && (STOP_SIGNALS as readonly string[]).includes(signal ?? ''));
}
