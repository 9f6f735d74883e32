import type BetterSqlite3 from 'better-sqlite3';
import type { Knex } from 'knex';
import { Cache } from '../../../cache/cache.js';
import type { Dialect } from '../../dialect.js';
import { sqliteDdl } from './ddl.js';
import { introspectSqlite, mapSqliteType } from './introspect.js';
import { sqliteSql } from './sql-hooks.js';
import { classifySqliteError } from './error-translation.js';
import { sqliteWrite } from './write-hooks.js';
import { applyStatementTimeout, statementTimeoutWarnings } from './statement-timeout.js';
import { SqliteReadThreads } from './read-threads.js';

/** Prepared statements per connection, by SQL text: request shapes repeat, and preparing costs more than running. */
const STATEMENT_CACHE_SIZE = 500;
const statements = new WeakMap<BetterSqlite3.Database, Cache<string, BetterSqlite3.Statement>>();

function prepared(connection: BetterSqlite3.Database, sql: string): BetterSqlite3.Statement {
  let cache = statements.get(connection);
  if (!cache) statements.set(connection, (cache = new Cache('prepared-statements', { max: STATEMENT_CACHE_SIZE })));
  return cache.compute(sql, () => connection.prepare(sql));
}

export const sqliteDialect: Dialect = {
  client: 'sqlite3',
  label: 'SQLite',
  snapshotVendor: 'sqlite',
  tidiedByLastClose: true,
  knexConfig(connection, session): Knex.Config {
    return {
      client: 'better-sqlite3',
      connection: connection as Knex.BetterSqlite3ConnectionConfig,
      useNullAsDefault: true,
      pool: {
        min: 1,
        max: 1,
        afterCreate(conn: BetterSqlite3.Database, done: (err: Error | null, conn: unknown) => void) {
          conn.pragma('foreign_keys = ON');
          conn.pragma('journal_mode = WAL');
          applyStatementTimeout(conn, session.statementTimeoutMs);
          done(null, conn);
        },
      },
    };
  },
  async execute(connection, sql, params) {
    const statement = prepared(connection as BetterSqlite3.Database, sql);
    const values = (params as unknown[]).map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v));
    if (statement.reader) return statement.all(...values) as Record<string, unknown>[];
    statement.run(...values);
    return [];
  },
  offLoopReads({ filename, threads, statementTimeoutMs }) {
    // An in-memory database exists only on its one connection: its reads stay inline.
    if (threads <= 0 || filename === ':memory:' || filename === '') return null;
    return new SqliteReadThreads({ filename, threads, statementTimeoutMs, cacheSize: STATEMENT_CACHE_SIZE });
  },
  settingWarnings: (session) => statementTimeoutWarnings(session.statementTimeoutMs),
  introspect: introspectSqlite,
  mapType: mapSqliteType,
  sql: sqliteSql,
  write: sqliteWrite,
  classifyError: classifySqliteError,
  ddl: sqliteDdl,
};
