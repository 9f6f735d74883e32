import type { WriteDialect } from '../../../sql/write-hooks.js';
import { postgresSql } from './sql-hooks.js';

export const postgresWrite: WriteDialect = {
  begin: 'begin',
  // The protocol counts parameters in 16 bits.
  maxParameters: 65_535,
  bind: (field, value) => postgresSql.bind(field, value),
  defaultRowInsert: (table) => `insert into ${table} default values`,
};
