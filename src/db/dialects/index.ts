import type { DbClient } from '../../config/config.js';
import type { Dialect } from '../dialect.js';
import { mysqlDialect } from './mysql/index.js';
import { postgresDialect } from './postgres/index.js';
import { sqliteDialect } from './sqlite/index.js';

export function dialectFor(client: DbClient): Dialect {
  switch (client) {
    case 'pg':
      return postgresDialect;
    case 'mysql':
      return mysqlDialect;
    case 'sqlite3':
      return sqliteDialect;
  }
}
