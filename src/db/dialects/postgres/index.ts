import type { Knex } from 'knex';
import type pg from 'pg';
import type { Dialect } from '../../dialect.js';
import { postgresReplication } from './replication.js';
import { postgresDdl } from './ddl.js';
import { introspectPostgres, mapPostgresType } from './introspect.js';
import { postgresSql } from './sql-hooks.js';
import { classifyPostgresError } from './error-translation.js';
import { postgresWrite } from './write-hooks.js';

/**
 * Startup options of every session. JIT off: a nested read is one statement of many small correlated subplans, whose
 * estimated cost (inflated on tables never analysed) crosses jit_above_cost long before it takes a millisecond to run,
 * and LLVM then compiles every JSON-building expression on each execution, seconds for a 5-level read
 * (docs/design/postgres-jit.md).
 */
const SESSION_OPTIONS = '-c jit=off';

export const postgresDialect: Dialect = {
  client: 'pg',
  label: 'PostgreSQL',
  snapshotVendor: 'postgres',
  knexConfig(connection, session): Knex.Config {
    // statement_timeout is a startup parameter of each connection: no extra round trip per statement.
    const timeout = session.statementTimeoutMs > 0 ? { statement_timeout: session.statementTimeoutMs } : {};
    // knex sets search_path on every new connection (DB_SEARCH_PATH): the schemas introspection serves.
    return {
      client: 'pg',
      connection: { ...(connection as Knex.PgConnectionConfig), ...timeout, options: SESSION_OPTIONS },
      searchPath: session.searchPath,
      pool: { min: 0, max: 10 },
    };
  },
  async execute(connection, sql, params, name) {
    // A named statement is parsed and planned once per connection; PostgreSQL then keeps custom plans for its values
    // or a generic plan when that costs no more (plan_cache_mode).
    const result = await (connection as pg.Client).query({ name, text: sql, values: params as unknown[] });
    return result.rows;
  },
  introspect: introspectPostgres,
  mapType: mapPostgresType,
  sql: postgresSql,
  write: postgresWrite,
  classifyError: classifyPostgresError,
  ddl: postgresDdl,
  replication: postgresReplication,
};
