/**
 * The one place that opens connections. knex owns the pool (and DDL/migrations) and stays inside src/db: hot-path
 * statements run on the raw driver through the dialect, so no query builder sits between the compiled SQL and the
 * database, and the service_* tables are read and written through the repositories in ./repositories. The pool is
 * reached only through knex's public client API (acquire, release, destroy a raw connection): no library's private
 * fields (see docs/design/database-pools.md).
 */
import { mkdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import type { DbConfig } from '../config/config.js';
import { InvalidQueryError, ServiceError, type ServiceUnavailableError } from '../errors/catalogue.js';
import { DatabaseError, databaseUnreachableError, statementTimeoutError } from '../errors/database-error.js';
import type { Dialect, OffLoopReads, RawConnection, ReadThreadUse } from './dialect.js';
import { dialectFor } from './dialects/index.js';
import { classifyError, failureKind, raised, statementNeverSent } from './failure-kind.js';
import { withFileLock } from './file-lock.js';
import { currentCaller } from './caller-scope.js';
import { ReplicaSet, type ReplicaState } from './replica-set.js';
import { WriteMarks } from './write-marks.js';

export type QueryListener = (sql: string, params: readonly unknown[]) => void;

/** What a statement did, by kind only (never its text: a bounded label for metrics). */
export type StatementKind = 'read' | 'write' | 'ddl' | 'transaction';

/** Told how long statements and acquires took (the metrics, when METRICS_ENABLED); none is set otherwise. */
export interface DatabaseObserver {
  statement(kind: StatementKind, seconds: number, failed: boolean): void;
  acquired(seconds: number): void;
}

/** How the pool is used now: connections lent out and idle (the pool's public counters), acquires waiting. */
export interface PoolUse {
  used: number;
  free: number;
  pending: number;
  max: number;
}

/** A row as a statement answers it: column (or alias) → value, as the driver gives it. */
export type Row = Record<string, unknown>;

/** Runs statements on one connection (a transaction's). */
export interface Executor {
  query<T = Row>(sql: string, params?: readonly unknown[]): Promise<T[]>;
}

/**
 * A statement's failure as the catalogue error it means (the database is away or too slow, a read's value it could
 * not take), or as the DatabaseError the caller reads when it is the statement's own (a refused write).
 */
function classified(dialect: Dialect, error: unknown, read: boolean): unknown {
  if (error instanceof ServiceError) return error;
  const failed = classifyError(dialect, error);
  switch (failed.kind) {
    case 'connection':
      return databaseUnreachableError();
    case 'timeout':
      return statementTimeoutError();
    case 'invalid_input':
      return read ? new InvalidQueryError('A value of the query does not fit its field') : failed;
    default:
      return failed;
  }
}

const READ = /^\s*select\b/i;
const DDL = /^\s*(create|alter|drop|truncate|rename|comment)\b/i;
const CONTROL = /^\s*(begin|start|commit|rollback|savepoint|release|set|pragma)\b/i;

function statementKind(sql: string, read: boolean): StatementKind {
  if (read) return 'read';
  if (DDL.test(sql)) return 'ddl';
  return CONTROL.test(sql) ? 'transaction' : 'write';
}

/**
 * Tries of a statement whose connection died under it. Every pooled connection may have died together (a server
 * restart, a balancer dropping idle connections): each failed try discards one, so the pool's size plus one try
 * reaches a fresh connection. A database that is really away fails at connecting instead, which ends the tries.
 */
const CONNECTION_TRIES = 11;

export class Database {
  /** Only src/db reaches the query builder (through `queryBuilder`); everything else runs SQL or a repository. */
  private readonly knex: Knex;
  readonly dialect: Dialect;
  private readonly listeners = new Set<QueryListener>();
  private readonly statementTimeoutMs: number;
  private closing: Promise<void> | null = null;
  /** A database file other processes may open too: named locks are files beside it (file-lock.ts). */
  private readonly lockFile: string | null;
  /** Where reads outside transactions run when the driver would run them on the event loop (SQLite). */
  private readonly readers: OffLoopReads | null;
  /** Resolves once the writer's connection was made: the file exists, in WAL mode, before a reader opens it. */
  private writerReady: Promise<void> | null = null;
  private observer: DatabaseObserver | null = null;
  /** Acquires waiting for a connection now (counted here: the pool's own count is not read, see database-pools.md). */
  private waiting = 0;
  private readonly poolMax: number;
  /** Read replicas (DB_REPLICAS) and when each caller last wrote; null without replicas. */
  private readonly replicas: { set: ReplicaSet; writes: WriteMarks } | null = null;

  constructor(config: DbConfig) {
    this.statementTimeoutMs = config.statementTimeoutMs ?? 0;
    this.dialect = dialectFor(config.client);
    if (config.client === 'sqlite3') mkdirSync(path.dirname(config.filename), { recursive: true });
    this.lockFile = config.client === 'sqlite3' && config.filename !== ':memory:' ? config.filename : null;
    // knex would print pool and connection errors on the console; they surface as 503s, logged by the HTTP layer.
    const quiet = () => {};
    const knexConfig = this.dialect.knexConfig(connectionSettings(config), {
      statementTimeoutMs: this.statementTimeoutMs,
      searchPath: config.searchPath,
    });
    this.poolMax = knexConfig.pool?.max ?? 0;
    this.knex = knexFactory({ ...knexConfig, log: { warn: quiet, error: quiet, debug: quiet, deprecate: quiet } });
    this.readers =
      config.client === 'sqlite3'
        ? (this.dialect.offLoopReads?.({
            filename: config.filename,
            threads: config.readThreads ?? 0,
            statementTimeoutMs: this.statementTimeoutMs,
          }) ?? null)
        : null;
    if (config.replicas?.urls.length) {
      const session = { statementTimeoutMs: this.statementTimeoutMs, searchPath: config.searchPath };
      const set = new ReplicaSet(
        this.dialect,
        config.replicas,
        (url) => this.dialect.knexConfig(connectionFromUrl(url, config), session),
        (sql) => this.onPooledConnection(true, (connection) => this.dialect.execute(connection, sql, [])),
      );
      this.replicas = { set, writes: new WriteMarks() };
    }
  }

  /** Starts measuring the replicas' lag (reads go to the primary until a replica is known to be caught up). */
  startReplicas(): void {
    this.replicas?.set.start();
  }

  /** The replicas' health, lag and reads served (for /server/health and tests); empty without replicas. */
  replicaStates(): ReplicaState[] {
    return this.replicas?.set.states() ?? [];
  }

  /** A write (or a transaction) by the current caller ended: their reads go to the primary until a replica has it. */
  private wrote(): void {
    if (!this.replicas) return;
    const { set, writes } = this.replicas;
    writes.wrote(currentCaller(), performance.now());
    writes.forgetBefore(set.servedSince());
  }

  /**
   * A read on a replica when one is healthy, caught up and has the caller's own writes; null when none is, or the
   * replica failed (the read then runs on the primary: a replica's failure never fails a request).
   */
  private async readOnReplica<T>(sql: string, params: readonly unknown[], name?: string): Promise<T[] | null> {
    const { set, writes } = this.replicas!;
    const replica = set.choose(writes.mustSee(currentCaller()));
    if (!replica) return null;
    try {
      return await set.read<T>(replica, sql, params, name);
    } catch {
      return null;
    }
  }

  /**
   * A pooled connection, through knex's public client API (its pool stays knex's). Once `close` has begun it fails
   * at once, and an acquire still waiting when `close` begins fails then (503), not when its acquire timeout fires.
   */
  private async acquire(): Promise<RawConnection> {
    if (this.closing) throw closedError();
    const observer = this.observer;
    const started = observer ? performance.now() : 0;
    this.waiting += 1;
    try {
      return (await this.client().acquireConnection()) as RawConnection;
    } catch (error) {
      // Destroying the pool aborts the acquires waiting for it: that is the close, not a failure of the database.
      if (this.closing) throw closedError();
      throw error;
    } finally {
      this.waiting -= 1;
      observer?.acquired((performance.now() - started) / 1000);
    }
  }

  private async release(connection: RawConnection): Promise<void> {
    await this.client().releaseConnection(connection);
  }

  /**
   * A connection whose socket failed is ended before it goes back: the pool's validation (knex's, on the driver's
   * own 'end' and 'error' events) then drops it instead of lending it again.
   */
  private async discard(connection: RawConnection): Promise<void> {
    await this.client()
      .destroyRawConnection(connection)
      .catch(() => {});
  }

  private client(): Knex.Client {
    return this.knex.client;
  }

  /**
   * Runs one statement with bound parameters on a pooled raw connection. A read whose connection turns out dead is
   * run once more on a fresh one (a read changes nothing, so running it twice is harmless); any other statement is
   * never repeated. Failures of the database come back as catalogue errors (503, or 400 for a value it refused).
   * `name`: a statement the caller runs again and again (a cached read), prepared once per connection where the
   * driver keeps prepared statements by name.
   */
  async query<T = Row>(sql: string, params: readonly unknown[] = [], name?: string): Promise<T[]> {
    for (const listener of this.listeners) listener(sql, params);
    const read = READ.test(sql);
    const observer = this.observer;
    if (observer) return timed(observer, statementKind(sql, read), () => this.run<T>(sql, params, name, read));
    return this.run<T>(sql, params, name, read);
  }

  private run<T>(sql: string, params: readonly unknown[], name: string | undefined, read: boolean): Promise<T[]> {
    if (read && this.readers) return this.readOffLoop<T>(sql, params);
    if (read && this.replicas && !this.closing) return this.replicaFirst<T>(sql, params, name);
    return this.onPrimary<T>(sql, params, name, read);
  }

  /** A read on a caught-up replica, or on the primary when none can take it (no extra step without replicas). */
  private async replicaFirst<T>(sql: string, params: readonly unknown[], name: string | undefined): Promise<T[]> {
    return (await this.readOnReplica<T>(sql, params, name)) ?? this.onPrimary<T>(sql, params, name, true);
  }

  private onPrimary<T>(sql: string, params: readonly unknown[], name: string | undefined, read: boolean): Promise<T[]> {
    return this.onPooledConnection(
      read,
      (connection) => this.dialect.execute(connection, sql, params, name) as Promise<T[]>,
    );
  }

  /** A read on a read thread: the event loop serves other requests meanwhile (see OffLoopReads). */
  private async readOffLoop<T>(sql: string, params: readonly unknown[]): Promise<T[]> {
    if (this.closing) throw closedError();
    this.writerReady ??= this.onPooledConnection(true, async () => {}).catch((error: unknown) => {
      this.writerReady = null;
      throw error;
    });
    await this.writerReady;
    try {
      return (await this.readers!.run(sql, params)) as T[];
    } catch (error) {
      throw classified(this.dialect, error, true);
    }
  }

  /**
   * Runs `statement` (one statement) on a pooled raw connection, with the retries and the classification of `query`:
   * a statement that never started (no connection could be made, or its connection was found dead before it was
   * sent) runs on a fresh connection; a read whose connection died under it too; a write that may have reached the
   * database never. For src/db's repositories; not observed by `onQuery` (that counts the engine's statements).
   */
  async onPooledConnection<T>(read: boolean, statement: (connection: RawConnection) => Promise<T>): Promise<T> {
    if (read || !this.replicas) return this.pooled(read, statement);
    try {
      return await this.pooled(read, statement);
    } finally {
      this.wrote();
    }
  }

  private async pooled<T>(read: boolean, statement: (connection: RawConnection) => Promise<T>): Promise<T> {
    // A new connection that cannot be made is tried once more (a server that is away may take a connect timeout).
    let failedToConnect = false;
    for (let attempt = 1; ; attempt++) {
      let connection: RawConnection;
      try {
        connection = await this.acquire();
      } catch (error) {
        if (freshConnectionFailed(this.dialect, error) && !failedToConnect) {
          failedToConnect = true;
          continue;
        }
        throw classified(this.dialect, error, read);
      }
      try {
        return await statement(connection);
      } catch (error) {
        if (failureKind(this.dialect, error) !== 'connection') throw classified(this.dialect, error, read);
        await this.discard(connection);
        if (!(read || statementNeverSent(this.dialect, error)) || attempt >= CONNECTION_TRIES)
          throw classified(this.dialect, error, read);
      } finally {
        await this.release(connection);
      }
    }
  }

  /**
   * Runs `work` while holding a server-wide named lock (see SqlDialect.namedLock) on a connection of its own; for a
   * database file, a lock file beside it that every process opening the file sees.
   */
  async withLock<T>(name: string, work: () => Promise<T>): Promise<T> {
    const statements = this.dialect.sql.namedLock(name);
    if (!statements)
      return this.lockFile ? withFileLock(`${this.lockFile}.${name.replace(/[^\w-]/g, '_')}.lock`, work) : work();
    const connection = await this.acquire().catch((error: unknown) => {
      throw raised(this.dialect, error);
    });
    try {
      await this.dialect.execute(connection, statements.lock, []).catch((error: unknown) => {
        throw raised(this.dialect, error);
      });
      try {
        return await work();
      } finally {
        await this.dialect.execute(connection, statements.unlock, []).catch(() => {});
      }
    } finally {
      await this.release(connection);
    }
  }

  /**
   * Runs `work` in one transaction on one pooled connection: committed when it resolves, rolled back when it
   * throws (the error is rethrown). Statements go through the raw driver like `query`, and are observed the same way.
   */
  async transaction<T>(work: (tx: Executor) => Promise<T>): Promise<T> {
    if (!this.replicas) return this.transactionWithRetries(work);
    try {
      return await this.transactionWithRetries(work);
    } finally {
      this.wrote();
    }
  }

  private async transactionWithRetries<T>(work: (tx: Executor) => Promise<T>): Promise<T> {
    let failedToConnect = false;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.transactionOnce(work);
      } catch (error) {
        // The connection died before the transaction began: nothing ran, so it runs on a fresh connection (a new
        // connection that could not be made, once more only).
        const connecting = error instanceof BeginFailed && error.connecting;
        if (error instanceof BeginFailed && attempt < CONNECTION_TRIES && !(connecting && failedToConnect)) {
          failedToConnect ||= connecting;
          continue;
        }
        // The work's own errors pass (a statement's failure is a DatabaseError already: see `run`).
        if (error instanceof BeginFailed || error instanceof DatabaseError)
          throw classified(this.dialect, error instanceof BeginFailed ? error.failure : error, false);
        throw error;
      }
    }
  }

  /**
   * One try of a transaction. A failure of the connection at `begin` is a BeginFailed (safe to retry); anywhere
   * later it is not retried: a failed commit leaves its outcome unknown, and an earlier failure has rolled back.
   */
  private async transactionOnce<T>(work: (tx: Executor) => Promise<T>): Promise<T> {
    let connection: RawConnection;
    try {
      connection = await this.acquire();
    } catch (error) {
      if (freshConnectionFailed(this.dialect, error)) throw new BeginFailed(error, true);
      throw raised(this.dialect, error);
    }
    const execute = async <R>(sql: string, params: readonly unknown[]): Promise<R[]> => {
      try {
        return (await this.dialect.execute(connection, sql, params)) as R[];
      } catch (error) {
        const failed = classifyError(this.dialect, error);
        if (failed.kind === 'connection') await this.discard(connection);
        throw failed;
      }
    };
    const observer = this.observer;
    const run = <R>(sql: string, params: readonly unknown[] = []): Promise<R[]> => {
      for (const listener of this.listeners) listener(sql, params);
      if (!observer) return execute<R>(sql, params);
      return timed(observer, statementKind(sql, READ.test(sql)), () => execute<R>(sql, params));
    };
    try {
      try {
        await run(this.dialect.write.begin);
      } catch (error) {
        if (failureKind(this.dialect, error) === 'connection') throw new BeginFailed(error);
        throw error;
      }
      let result: T;
      try {
        result = await work({ query: run });
      } catch (error) {
        await run('rollback').catch(() => {});
        throw error;
      }
      await run('commit');
      return result;
    } finally {
      await this.release(connection);
    }
  }

  /** Observes every statement run through `query` (tests count statements with it). */
  onQuery(listener: QueryListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Runs a statement that does not go through `query` (a schema change's DDL), observed as `kind`. */
  observed<T>(kind: StatementKind, statement: () => Promise<T>): Promise<T> {
    const observer = this.observer;
    return observer ? timed(observer, kind, statement) : statement();
  }

  /** Tells `observer` how long each statement and acquire takes from now on (the metrics); null stops it. */
  observe(observer: DatabaseObserver | null): void {
    this.observer = observer;
  }

  /**
   * The pool's use now: lent out and idle from the pool's public counters (knex's typed `client.pool`, a tarn pool),
   * waiting from this class's own count. Null when the pool is not made yet or does not count.
   */
  poolUse(): PoolUse | null {
    const pool = this.client().pool;
    if (!pool || !('numUsed' in pool) || !('numFree' in pool)) return null;
    return { used: pool.numUsed(), free: pool.numFree(), pending: this.waiting, max: this.poolMax };
  }

  /** SQLite's read threads now (null when reads run inline or on a server database). */
  readThreadUse(): ReadThreadUse | null {
    return this.readers?.use() ?? null;
  }

  /** Settings the database cannot honour here (known once a connection was made), for the start-up log. */
  settingWarnings(): string[] {
    return this.dialect.settingWarnings?.({ statementTimeoutMs: this.statementTimeoutMs }) ?? [];
  }

  /** Cheap round trip; throws when the database does not answer. */
  async ping(): Promise<void> {
    await this.knex.raw('select 1').catch((error: unknown) => {
      throw raised(this.dialect, error);
    });
  }

  /**
   * Closes the pool: statements and acquires from now on fail with 503, those waiting for a connection are
   * rejected, and no timer of the pool is left behind. Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= this.destroyPool();
    return this.closing;
  }

  private async destroyPool(): Promise<void> {
    await this.replicas?.set.close();
    // Readers first: the writer's connection, closing last, checkpoints the WAL into the file.
    await this.readers?.close();
    // Destroying the pool aborts the acquires waiting for it; new ones are refused by `acquire` (knex's own, by
    // knex: it has no pool any more).
    await this.knex.destroy();
  }
}

/**
 * The query builder over this database's pool: for src/db's migrations, introspection, DDL and repositories (and
 * test fixtures). Services never take it: they run SQL through `query`/`transaction` or call a repository.
 */
export function queryBuilder(db: Database): Knex {
  return db['knex'];
}

/** The threads that run reads off the event loop (none when reads run inline), for tests that stop one. */
export function readThreads(db: Database): { terminate(): Promise<number> }[] {
  return db['readers']?.threads() ?? [];
}

/**
 * A new connection could not be made (nothing ran on it): worth another try. Not a pool that stayed full until its
 * acquire timeout, which has waited long enough already.
 */
function freshConnectionFailed(dialect: Dialect, error: unknown): boolean {
  const failed = classifyError(dialect, error);
  return failed.kind === 'connection' && !failed.poolTimeout;
}

/** Runs `statement`, telling `observer` its kind, duration and whether it failed. */
async function timed<T>(observer: DatabaseObserver, kind: StatementKind, statement: () => Promise<T>): Promise<T> {
  const started = performance.now();
  let failed = true;
  try {
    const result = await statement();
    failed = false;
    return result;
  } finally {
    observer.statement(kind, (performance.now() - started) / 1000, failed);
  }
}

/** A statement or acquire after `close`: the database is not there any more, as far as this process goes. */
function closedError(): ServiceUnavailableError {
  return databaseUnreachableError();
}

/** The connection died at `begin`: the transaction never started. */
class BeginFailed extends Error {
  constructor(
    readonly failure: unknown,
    /** No connection could be made (rather than a pooled one found dead). */
    readonly connecting = false,
  ) {
    super('The connection failed before the transaction began');
  }
}

function connectionSettings(config: DbConfig): unknown {
  if (config.client === 'sqlite3') return { filename: config.filename };
  if (config.connectionString) return connectionFromUrl(config.connectionString, config);
  return {
    host: config.host ?? '127.0.0.1',
    port: config.port ?? undefined,
    database: config.database ?? undefined,
    user: config.user ?? undefined,
    password: config.password ?? undefined,
  };
}

/** Connection URLs are accepted for every server client (Directus only reads it for pg). */
function connectionFromUrl(url: string, config: DbConfig): unknown {
  const u = new URL(url);
  return {
    host: decodeURIComponent(u.hostname) || config.host || '127.0.0.1',
    port: u.port ? Number(u.port) : (config.port ?? undefined),
    database: decodeURIComponent(u.pathname.replace(/^\//, '')) || config.database || undefined,
    user: u.username ? decodeURIComponent(u.username) : (config.user ?? undefined),
    password: u.password ? decodeURIComponent(u.password) : (config.password ?? undefined),
  };
}
