/**
 * The body of a SQLite read thread (read-threads.ts starts it). It runs as the worker's whole program, given as
 * source text (`eval`) rather than as a module file: Strata runs from src/ through tsx, from dist/, from one bundled
 * file (the CLI, the tests) and from the bench's build, and a file path would have to be right in each. So
 * `readWorker` must be self-contained: it may use only its parameters and the globals of Node (no import, no
 * module-level name of this file), and its source is taken with `toString()`.
 */
import type { MessagePort } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';

export interface ReadWorkerData {
  /** better-sqlite3's entry point, as `require` resolves it in the main thread. */
  driver: string;
  filename: string;
  /** The statement-timeout extension, or null when it is not built. */
  extension: string | null;
  statementTimeoutMs: number;
  /** The interrupt group of the pool's connections (statement-timeout.c), so that closing stops a running read. */
  group: number;
  /**
   * Set to 1 (one Int32 shared with the main thread) once the pool closes: a read that had not started yet never
   * starts. An interrupt reaches only statements already running, so without it a read starting just after the
   * pool's interrupt would run on, and a thread inside SQLite holds the process at exit.
   */
  closing: Int32Array;
  /** Prepared statements kept per thread, by SQL text. */
  cacheSize: number;
}

/** main → thread: [request id, sql, params] (or 'close', the last message). */
export type ReadRequest = [number, string, readonly unknown[]];
/** thread → main: [request id, rows, some value is bytes] or [request id, null, the error]. */
export type ReadReply = [number, Record<string, unknown>[], boolean] | [number, null, WorkerError];

/** An error as it crosses threads: what the failure classification reads (name for the class, the driver's code). */
export interface WorkerError {
  name: string;
  message: string;
  code?: string;
}

export function readWorker(port: MessagePort, data: ReadWorkerData, Driver: typeof BetterSqlite3): void {
  let db: BetterSqlite3.Database | null = null;
  const statements = new Map<string, BetterSqlite3.Statement>();

  const open = (): BetterSqlite3.Database => {
    // Read-only: a read thread can never write, whatever statement reaches it. WAL (set by the writer) lets it read
    // the last committed state while the writer writes.
    const connection = new Driver(data.filename, { readonly: true, fileMustExist: true });
    if (data.extension) {
      try {
        connection.loadExtension(data.extension);
        if (data.statementTimeoutMs > 0)
          connection.prepare('select strata_statement_timeout(?)').get(data.statementTimeoutMs);
        connection.prepare('select strata_join_interrupt_group(?)').get(data.group);
      } catch {
        // As on the writer: without the extension the connection still reads (the start-up log says why).
      }
    }
    return connection;
  };

  // Least recently used goes first: a Map keeps insertion order, and a statement used again is put back last.
  const prepared = (connection: BetterSqlite3.Database, sql: string): BetterSqlite3.Statement => {
    let statement = statements.get(sql);
    if (statement) statements.delete(sql);
    else {
      statement = connection.prepare(sql);
      if (statements.size >= data.cacheSize) statements.delete(statements.keys().next().value as string);
    }
    statements.set(sql, statement);
    return statement;
  };

  const hasBytes = (rows: Record<string, unknown>[]): boolean => {
    for (const row of rows) for (const key in row) if (row[key] instanceof Uint8Array) return true;
    return false;
  };

  port.on('message', (request: ReadRequest | 'close') => {
    // The pool is closing: this message comes after any running read returned (interrupted), so the thread ends
    // on its own. Terminating a thread inside a statement aborts the process (the driver throws into a dying isolate).
    if (request === 'close') {
      db?.close();
      port.close();
      return;
    }
    const [id, sql, params] = request;
    // The pool fails what this thread had when it ends (503); nothing more starts.
    if (Atomics.load(data.closing, 0) === 1) return;
    try {
      db ??= open();
      const statement = prepared(db, sql);
      // Bound as the main thread binds them; bytes arrive as Uint8Array, which the driver binds like a Buffer.
      const values = params.map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v));
      const rows = statement.reader ? (statement.all(...values) as Record<string, unknown>[]) : [];
      if (!statement.reader) statement.run(...values);
      port.postMessage([id, rows, hasBytes(rows)] satisfies ReadReply);
    } catch (caught) {
      const error = caught as { name?: unknown; message?: unknown; code?: unknown };
      const reply: WorkerError = { name: String(error?.name ?? 'Error'), message: String(error?.message ?? caught) };
      if (typeof error?.code === 'string') reply.code = error.code;
      // A connection that could not open is opened again by the next read.
      if (db && !db.open) {
        db = null;
        statements.clear();
      }
      port.postMessage([id, null, reply] satisfies ReadReply);
    }
  });
}

/** The thread's program: `readWorker` with what it is given. */
export function readWorkerSource(): string {
  // tsx (esbuild with keepNames) names functions through a helper `__name` that is not there in the thread.
  return [
    'const __name = (target) => target;',
    "const threads = require('node:worker_threads');",
    `(${readWorker.toString()})(threads.parentPort, threads.workerData, require(threads.workerData.driver));`,
  ].join('\n');
}
