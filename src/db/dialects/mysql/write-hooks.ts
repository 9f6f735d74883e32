import type { WriteDialect } from '../../../sql/write-hooks.js';
import { mysqlSql } from './sql-hooks.js';

export const mysqlWrite: WriteDialect = {
  begin: 'start transaction',
  // Placeholders are counted in 16 bits by the server's prepared statements; mysql2's text protocol has no such
  // limit, but statements stay well below max_allowed_packet this way.
  maxParameters: 65_535,
  bind: (field, value) => mysqlSql.bind(field, value),
  defaultRowInsert: (table) => `insert into ${table} () values ()`,
};
