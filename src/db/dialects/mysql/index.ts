import type { Knex } from 'knex';
import type { Dialect } from '../../dialect.js';
import { mariadbReplication } from './replication.js';
import { mysqlDdl } from './ddl.js';
import { introspectMysql, mapMysqlType } from './introspect.js';
import { mysqlSql } from './sql-hooks.js';
import { classifyMysqlError } from './error-translation.js';
import { mysqlWrite } from './write-hooks.js';

interface CallbackConnection {
  query(sql: string, params: readonly unknown[], cb: (err: Error | null, rows: unknown) => void): void;
}

export const mysqlDialect: Dialect = {
  client: 'mysql',
  label: 'MySQL/MariaDB',
  snapshotVendor: 'mysql',
  knexConfig(connection, session): Knex.Config {
    const seconds = session.statementTimeoutMs / 1000;
    return {
      client: 'mysql2',
      connection: {
        ...(connection as object),
        // Dates are formatted to the wire format in SQL; the session runs in UTC so TIMESTAMP values are UTC.
        timezone: 'Z',
        dateStrings: true,
        supportBigNumbers: true,
        bigNumberStrings: true,
        charset: 'utf8mb4',
      },
      pool: {
        min: 0,
        max: 10,
        afterCreate(conn: CallbackConnection, done: (err: Error | null, conn: unknown) => void) {
          // JSON_ARRAYAGG is bounded by group_concat_max_len (1 MB by default): a large read would be cut short.
          conn.query("SET time_zone = '+00:00', group_concat_max_len = 4294967295", [], (err) => {
            if (err || seconds <= 0) return done(err, conn);
            // MariaDB bounds every statement (max_statement_time, seconds); MySQL has only max_execution_time (ms, SELECTs).
            conn.query(`SET SESSION max_statement_time = ${seconds}`, [], (mariaErr) => {
              if (!mariaErr) return done(null, conn);
              conn.query(`SET SESSION max_execution_time = ${Math.ceil(session.statementTimeoutMs)}`, [], (mysqlErr) =>
                done(mysqlErr, conn),
              );
            });
          });
        },
      },
    };
  },
  execute(connection, sql, params) {
    return new Promise((resolve, reject) => {
      (connection as CallbackConnection).query(sql, params, (err, rows) => {
        if (err) reject(err);
        else resolve(Array.isArray(rows) ? (rows as Record<string, unknown>[]) : []);
      });
    });
  },
  introspect: introspectMysql,
  mapType: mapMysqlType,
  sql: mysqlSql,
  write: mysqlWrite,
  classifyError: classifyMysqlError,
  ddl: mysqlDdl,
  replication: mariadbReplication,
};
