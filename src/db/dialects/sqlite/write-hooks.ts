import type { WriteDialect } from '../../../sql/write-hooks.js';

export const sqliteWrite: WriteDialect = {
  // IMMEDIATE takes the write lock at once, so a transaction never fails half-way on a busy database.
  begin: 'begin immediate',
  // SQLITE_MAX_VARIABLE_NUMBER's default since SQLite 3.32 (better-sqlite3 bundles a newer one).
  maxParameters: 32_766,
  bind: (_field, value) => (typeof value === 'boolean' ? (value ? 1 : 0) : value),
  defaultRowInsert: (table) => `insert into ${table} default values`,
};
