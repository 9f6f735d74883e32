/**
 * Runs the statements of a schema change on the connection behind a knex handle (the change's transaction, or a
 * pooled connection), through the raw driver: knex's raw() would rewrite every `?` in the text, and DDL carries
 * regular expressions and arbitrary identifiers. Each statement is announced as knex's `query` event, so
 * `knex.on('query')` sees DDL like any other statement (tests count them).
 */
import type { Knex } from 'knex';
import type { CatalogRow } from './introspection-utils.js';

export type DriverExecute = (connection: unknown, sql: string, params: unknown[]) => Promise<CatalogRow[]>;
export type Run = (knex: Knex, sql: string, params?: unknown[]) => Promise<CatalogRow[]>;

export function statementRunner(execute: DriverExecute): Run {
  return async (knex, sql, params = []) => {
    // knex's public client API: a transaction's client hands out the transaction's connection.
    const client = knex.client;
    client.emit('query', { sql, bindings: params, method: 'raw' });
    const connection: unknown = await client.acquireConnection();
    try {
      return await execute(connection, sql, params);
    } finally {
      await client.releaseConnection(connection);
    }
  };
}
