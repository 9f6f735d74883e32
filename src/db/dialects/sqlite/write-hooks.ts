import type { WriteDialect } from '../../../sql/write-hooks.js';
import { sqliteSql } from './sql-hooks.js';

export const sqliteWrite: WriteDialect = {
  // IMMEDIATE takes the write lock at once, so a transaction never fails half-way on a busy database.
  begin: 'begin immediate',
  // SQLITE_MAX_VARIABLE_NUMBER's default since SQLite 3.32 (better-sqlite3 bundles a newer one).
  maxParameters: 32_766,
  bind: (_field, value) => (typeof value === 'boolean' ? (value ? 1 : 0) : value),
  defaultRowInsert: (table) => `insert into ${table} default values`,
  // json_extract answers a JSON number as an integer or real and a string as text: no cast needed.
  jsonRows: (parameter, columns, alias) =>
    `(select ${columns.map((c, i) => `json_extract(value, '$[${i}]') as ${sqliteSql.quote(c.name)}`).join(', ')}, key as ord from json_each(${parameter})) as ${alias}`,
  rowsParameter: (rows) => JSON.stringify(rows),
};
