import type BetterSqlite3 from 'better-sqlite3';
import type { Knex } from 'knex';
import type { Dialect } from '../../dialect.js';
import { introspectSqlite, mapSqliteType } from './introspect.js';
import { sqliteSql } from './sql-hooks.js';

export const sqliteDialect: Dialect = {
  client: 'sqlite3',
  label: 'SQLite',
  knexConfig(connection): Knex.Config {
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
          done(null, conn);
        },
      },
    };
  },
  async execute(connection, sql, params) {
    const statement = (connection as BetterSqlite3.Database).prepare(sql);
    const values = (params as unknown[]).map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v));
    if (statement.reader) return statement.all(...values) as Record<string, unknown>[];
    statement.run(...values);
    return [];
  },
  introspect: introspectSqlite,
  mapType: mapSqliteType,
  sql: sqliteSql,
};
