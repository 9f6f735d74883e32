import type { Config } from '../config/config.js';
import { createApp } from '../http/app.js';
import { loggerOptions } from '../http/log-options.js';
import { createAppContext, type AppContext } from '../app/app-context.js';
import type { StartLog } from '../app/start-log.js';
import { superviseWorkers } from '../workers/supervisor.js';
import { StopRequest, type SignalSource, type StopSignal } from '../workers/stop-signals.js';
import { followRestarts, isClusterWorker, stopWithPrimary } from '../workers/worker-side.js';
import cluster from 'node:cluster';
import type { CliIo } from './cli-support.js';

export { STOP_SIGNALS, type SignalSource, type StopSignal } from '../workers/stop-signals.js';

/** Serves until a stop signal, then resolves with the exit code (0, or 1 when stopping failed). */
export async function runStartCommand(config: Config, io: CliIo, signals: SignalSource): Promise<number> {
  const logger = { ...loggerOptions(config.logLevel), stream: io.stdout };
  // A context first (database, bootstrap, schema); the server only listens once the schema is known.
  const startupLog = {
    info: (msg: string) => config.logLevel !== 'silent' && io.stdout.write(`${msg}\n`),
    warn: (msg: string) => io.stdout.write(`${msg}\n`),
  };
  // WORKERS > 1: this process is the primary (it forks, relays and supervises) or one of the workers it forked.
  if (config.workers > 1 && cluster.isPrimary) return superviseWorkers(config, startupLog, signals);
  const worker = isClusterWorker(config.workers);
  const stop = new StopRequest(signals);
  // A worker listens from its first moment: its primary signals it as soon as the server is told to stop, which may
  // be while it still starts (and Ctrl-C reaches it straight from the terminal), and Node's default action would end
  // it half-way through opening the database. Its stop then waits for its start. A single process is still ended at
  // once by a signal during its start (it may be waiting for a database that is away).
  if (worker) {
    stop.listen();
    stopWithPrimary(() => stop.request('SIGTERM'));
  }
  let context: AppContext;
  try {
    context = await createAppContext(config, { bootstrap: !worker, log: startupLog });
  } catch (error) {
    stop.unlisten();
    throw error;
  }
  const app = createApp(context, { logger, ...(worker ? { worker: String(process.pid) } : {}) });
  if (worker) followRestarts(context.metrics);
  stop.listen();
  const serverContext = () => ({ accountability: null, schema: context.schema.current, database: context.db });

  // The stop is taken only once the listen has settled: closing the server while node:cluster still asks the
  // primary for the port left that listen unsettled for good, and the worker waiting on it, after it had closed.
  const listening = !stop.requested;
  if (listening) {
    try {
      await app.listen({ host: config.host, port: config.port });
    } catch (error) {
      stop.unlisten();
      await app.close().catch(() => {});
      await context.close().catch(() => {});
      throw listenError(error, config);
    }
    context.events.emitAction('server.start', { server: app.server }, serverContext());
  }
  const signal = await stop.first;
  if (listening) context.events.emitAction('server.stop', {}, serverContext());
  return shutDown({ app, context, log: startupLog, io, worker }, signal, () => stop.unlisten());
}

interface Running {
  app: { close(): PromiseLike<unknown> };
  context: AppContext;
  log: StartLog;
  io: CliIo;
  worker: boolean;
}

/**
 * Stop accepting, let in-flight requests finish (new ones get 503), then close the pools. Sockets are closed (1001)
 * and a connection still open SHUTDOWN_TIMEOUT later is destroyed (http/upgrade-sockets.ts), so the process still
 * ends whatever its clients do. One line says it happened. Until that line, a second signal is ignored rather than
 * ending the process half-way through closing; `unlisten` runs after it.
 */
async function shutDown(running: Running, signal: StopSignal, unlisten: () => void): Promise<number> {
  const { app, context, log, io, worker } = running;
  const started = Date.now();
  let code = 0;
  try {
    await app.close();
    await context.close();
  } catch (error) {
    code = 1;
    io.stderr.write(`strata: error while stopping: ${(error as Error).message}\n`);
  } finally {
    // A worker's line names it: the primary says the one "Stopped on" line of the whole server.
    const who = worker ? `Worker ${process.pid} stopped` : 'Stopped';
    log.info(`${who} on ${signal} after ${Date.now() - started} ms`);
    unlisten();
  }
  return code;
}

/** A listen failure → one line naming the address and what to change (every other start-up problem is one line too). */
function listenError(error: unknown, config: Config): Error {
  const code = (error as NodeJS.ErrnoException).code;
  const address = `${config.host}:${config.port}`;
  const reasons: Record<string, string> = {
    EADDRINUSE: 'the address is already in use by another process (set PORT or HOST)',
    EACCES: 'no permission (ports below 1024 need privileges; set PORT)',
    EADDRNOTAVAIL: `${config.host} is not an address of this machine (set HOST)`,
  };
  return new ListenError(
    `Can't listen on ${address}: ${code && reasons[code] ? reasons[code] : ((error as Error).message ?? String(error))}`,
  );
}

export class ListenError extends Error {}
