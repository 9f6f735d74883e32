/**
 * The one place that opens connections. knex owns the pool (and DDL/migrations); hot-path statements run on the raw
 * driver through the dialect, so no query builder sits between the compiled SQL and the database.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import type { DbConfig } from '../config/config.js';
import type { Dialect } from './dialect.js';
import { dialectFor } from './dialects/index.js';

export type QueryListener = (sql: string, params: readonly unknown[]) => void;

/** Runs statements on one connection (a transaction's). */
export interface Executor {
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T[]>;
}

type Pool = { acquireConnection(): Promise<unknown>; releaseConnection(c: unknown): Promise<void> };

export class Database {
  readonly knex: Knex;
  readonly dialect: Dialect;
  private readonly listeners = new Set<QueryListener>();

  constructor(config: DbConfig) {
    this.dialect = dialectFor(config.client);
    if (config.client === 'sqlite3') mkdirSync(path.dirname(config.filename), { recursive: true });
    // knex would print pool and connection errors on the console; they surface as 503s, logged by the HTTP layer.
    const quiet = () => {};
    this.knex = knexFactory({ ...this.dialect.knexConfig(connectionSettings(config), { searchPath: config.searchPath }), log: { warn: quiet, error: quiet, debug: quiet, deprecate: quiet } });
  }

  /** Runs one statement with bound parameters on a pooled raw connection. */
  async query<T = Record<string, unknown>>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    for (const listener of this.listeners) listener(sql, params);
    const client = this.knex.client as { acquireConnection(): Promise<unknown>; releaseConnection(c: unknown): Promise<void> };
    const connection = await client.acquireConnection();
    try {
      return (await this.dialect.execute(connection, sql, params)) as T[];
    } finally {
      await client.releaseConnection(connection);
    }
  }

  /** Runs `work` while holding a server-wide named lock (see SqlDialect.namedLock) on a connection of its own. */
  async withLock<T>(name: string, work: () => Promise<T>): Promise<T> {
    const statements = this.dialect.sql.namedLock(name);
    if (!statements) return work();
    const client = this.knex.client as { acquireConnection(): Promise<unknown>; releaseConnection(c: unknown): Promise<void> };
    const connection = await client.acquireConnection();
    try {
      await this.dialect.execute(connection, statements.lock, []);
      try {
        return await work();
      } finally {
        await this.dialect.execute(connection, statements.unlock, []).catch(() => {});
      }
    } finally {
      await client.releaseConnection(connection);
    }
  }

  /**
   * Runs `work` in one transaction on one pooled connection: committed when it resolves, rolled back when it
   * throws (the error is rethrown). Statements go through the raw driver like `query`, and are observed the same way.
   */
  async transaction<T>(work: (tx: Executor) => Promise<T>): Promise<T> {
    const client = this.knex.client as Pool;
    const connection = await client.acquireConnection();
    const run = async <R>(sql: string, params: readonly unknown[] = []): Promise<R[]> => {
      for (const listener of this.listeners) listener(sql, params);
      return (await this.dialect.execute(connection, sql, params)) as R[];
    };
    try {
      await run(this.dialect.write.begin);
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
      await client.releaseConnection(connection);
    }
  }

  /** Observes every statement run through `query` (tests count statements with it). */
  onQuery(listener: QueryListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Cheap round trip; throws when the database does not answer. */
  async ping(): Promise<void> {
    await this.knex.raw('select 1');
  }

  async close(): Promise<void> {
    await this.knex.destroy();
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
