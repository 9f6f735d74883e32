/**
 * SQLite reads off the event loop. better-sqlite3 runs a statement to its end inside the call, so a read of seconds
 * would hold every other request that long; here each read goes to one of a few worker threads, each with its own
 * read-only connection to the same file (WAL: readers see the last commit and never wait for the writer). Writes
 * and transactions stay on the main thread's one connection. A thread starts when a read finds every running one
 * busy, up to DB_READ_THREADS. A thread that dies fails its pending reads with 503 and is replaced by the next read;
 * `close` interrupts running statements (statement-timeout.c's interrupt groups) and ends the threads.
 * Design: docs/design/sqlite-read-threads.md.
 */
import { randomInt } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { ServiceUnavailableError } from '../../../errors/catalogue.js';
import type { OffLoopReads, ReadThreadUse } from '../../dialect.js';
import { STATEMENT_TIMEOUT_LIBRARY } from './statement-timeout.js';
import {
  readWorkerSource,
  type ReadReply,
  type ReadRequest,
  type ReadWorkerData,
  type WorkerError,
} from './read-worker.js';

type Row = Record<string, unknown>;

interface Pending {
  resolve(rows: Row[]): void;
  reject(error: unknown): void;
}

interface Reader {
  worker: Worker;
  pending: Map<number, Pending>;
}

export interface ReadThreadSettings {
  filename: string;
  threads: number;
  statementTimeoutMs: number;
  cacheSize: number;
}

/** How long `close` waits for a thread whose statement it could not interrupt. */
const CLOSE_WAIT_MS = 2_000;
/** How often `close` interrupts again while threads are still inside a statement. */
const INTERRUPT_EVERY_MS = 25;

/** The classes a driver error can have that the failure classification tells apart (TypeError: a closed connection). */
const ERROR_CLASSES: Record<string, new (message: string) => Error> = {
  TypeError,
  RangeError,
};

export class SqliteReadThreads implements OffLoopReads {
  private readonly readers: (Reader | null)[];
  private readonly data: ReadWorkerData;
  private nextId = 1;
  private closing: Promise<void> | null = null;

  constructor(settings: ReadThreadSettings) {
    this.readers = Array.from({ length: settings.threads }, () => null);
    const extension = existsSync(STATEMENT_TIMEOUT_LIBRARY) ? STATEMENT_TIMEOUT_LIBRARY : null;
    this.data = {
      driver: createRequire(import.meta.url).resolve('better-sqlite3'),
      filename: settings.filename,
      extension,
      statementTimeoutMs: settings.statementTimeoutMs,
      // Process-wide (one copy of the library per process): random, so that two pools never share one.
      group: randomInt(1, 2 ** 47),
      closing: new Int32Array(new SharedArrayBuffer(4)),
      cacheSize: settings.cacheSize,
    };
  }

  run(sql: string, params: readonly unknown[]): Promise<Row[]> {
    if (this.closing) return Promise.reject(closedError());
    const reader = this.pick();
    const id = this.nextId++;
    return new Promise<Row[]>((resolve, reject) => {
      reader.pending.set(id, { resolve, reject });
      // A thread with reads to answer keeps the process alive (a CLI command awaiting one); an idle one does not.
      if (reader.pending.size === 1) reader.worker.ref();
      try {
        reader.worker.postMessage([id, sql, params] satisfies ReadRequest);
      } catch (error) {
        this.settle(reader, id);
        reject(error);
      }
    });
  }

  use(): ReadThreadUse {
    let busy = 0;
    let queued = 0;
    for (const reader of this.readers) {
      if (!reader || reader.pending.size === 0) continue;
      busy += 1;
      queued += reader.pending.size - 1;
    }
    return { max: this.readers.length, busy, queued };
  }

  /** An idle thread, else a new one while there is room, else the one with the fewest reads waiting. */
  private pick(): Reader {
    let least: Reader | null = null;
    let free = -1;
    for (let i = 0; i < this.readers.length; i++) {
      const reader = this.readers[i];
      if (!reader) {
        if (free < 0) free = i;
        continue;
      }
      if (reader.pending.size === 0) return reader;
      if (!least || reader.pending.size < least.pending.size) least = reader;
    }
    if (free >= 0) return (this.readers[free] = this.start(free));
    return least!;
  }

  private start(slot: number): Reader {
    const worker = new Worker(readWorkerSource(), {
      eval: true,
      workerData: this.data,
      // Not the parent's flags (a TypeScript loader, inspector): the thread's program is plain JavaScript.
      execArgv: [],
      stdout: false,
      stderr: false,
    });
    worker.unref();
    const reader: Reader = { worker, pending: new Map() };
    worker.on('message', (reply: ReadReply) => this.answer(reader, reply));
    // An uncaught error ends the thread: 'exit' follows and fails what it had.
    worker.on('error', () => {});
    worker.on('messageerror', () => void worker.terminate());
    worker.on('exit', () => {
      if (this.readers[slot] === reader) this.readers[slot] = null;
      const failure = this.closing ? closedError() : threadStoppedError();
      for (const pending of reader.pending.values()) pending.reject(failure);
      reader.pending.clear();
    });
    return reader;
  }

  private answer(reader: Reader, [id, rows, third]: ReadReply): void {
    const pending = this.settle(reader, id);
    if (!pending) return;
    if (rows) pending.resolve(third ? withBuffers(rows) : rows);
    else pending.reject(recreated(third as WorkerError));
  }

  private settle(reader: Reader, id: number): Pending | undefined {
    const pending = reader.pending.get(id);
    reader.pending.delete(id);
    if (reader.pending.size === 0) reader.worker.unref();
    return pending;
  }

  /** Fails what is waiting, stops running statements, ends the threads. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.stop();
    return this.closing;
  }

  private async stop(): Promise<void> {
    Atomics.store(this.data.closing, 0, 1);
    const running = this.readers.filter((r): r is Reader => r !== null);
    if (running.length === 0) return;
    // A thread inside a statement only ends when the statement returns: interrupt it, and again until every thread
    // has ended (an interrupt reaches only statements running at that moment; one that started just after is
    // reached by the next).
    let interrupting: NodeJS.Timeout | null = null;
    if (this.data.extension && running.some((r) => r.pending.size > 0)) {
      this.interruptAll();
      interrupting = setInterval(() => this.interruptAll(), INTERRUPT_EVERY_MS);
    }
    try {
      await Promise.all(running.map((r) => this.ended(r)));
    } finally {
      if (interrupting) clearInterval(interrupting);
    }
  }

  /**
   * Asks a thread to end after its running read (never `terminate`: a thread stopped inside a statement aborts the
   * whole process). A thread whose statement cannot be interrupted (no extension) is let go after a while: unref'd,
   * it keeps nothing alive, and what it had fails now.
   */
  private ended(reader: Reader): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        reader.worker.unref();
        for (const pending of reader.pending.values()) pending.reject(closedError());
        reader.pending.clear();
        resolve();
      }, CLOSE_WAIT_MS);
      timer.unref();
      reader.worker.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      reader.worker.ref();
      reader.worker.postMessage('close');
    });
  }

  private interruptAll(): void {
    try {
      const connection = new BetterSqlite3(':memory:');
      try {
        connection.loadExtension(this.data.extension!);
        connection.prepare('select strata_interrupt_group(?)').get(this.data.group);
      } finally {
        connection.close();
      }
    } catch {
      // The threads then end when their statements do (bounded by DB_STATEMENT_TIMEOUT).
    }
  }

  /** The running threads, for tests that stop one as if it had crashed. */
  threads(): Worker[] {
    return this.readers.filter((r): r is Reader => r !== null).map((r) => r.worker);
  }
}

/** The driver's error as the main thread would have seen it: its class, message and SQLite code. */
function recreated(error: WorkerError): Error {
  const ErrorClass = Object.hasOwn(ERROR_CLASSES, error.name) ? ERROR_CLASSES[error.name]! : Error;
  const copy = new ErrorClass(error.message) as Error & { code?: string };
  if (ErrorClass === Error) copy.name = error.name;
  if (error.code !== undefined) copy.code = error.code;
  return copy;
}

/** Blobs cross threads as Uint8Array; the inline driver gives Buffers. */
function withBuffers(rows: Row[]): Row[] {
  for (const row of rows) {
    for (const key in row) {
      const value = row[key];
      if (value instanceof Uint8Array && !Buffer.isBuffer(value))
        row[key] = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    }
  }
  return rows;
}

function threadStoppedError(): ServiceUnavailableError {
  return new ServiceUnavailableError('database', 'The database read thread stopped before answering; try again');
}

function closedError(): ServiceUnavailableError {
  return new ServiceUnavailableError('database', 'The database is not reachable');
}
