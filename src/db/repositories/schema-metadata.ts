/**
 * What the SchemaOverview is built from: the introspected tables and the rows of the metadata tables, as one
 * connection sees them (a schema change's transaction sees its own uncommitted changes).
 */
import type { Knex } from 'knex';
import type { TableInfo } from '../../schema/types.js';
import { queryBuilder, type Database } from '../connection.js';

/** A connection to read through: the pool, or a transaction in progress (opaque outside src/db). */
export type SchemaConnection = Knex | Knex.Transaction;

const META_TABLES = ['service_collections', 'service_fields', 'service_relations'] as const;

type Rows = Record<string, unknown>[];

export interface SchemaSource {
  tables: TableInfo[];
  collections: Rows;
  fields: Rows;
  relations: Rows;
}

export async function readSchemaSource(db: Database, connection: SchemaConnection = queryBuilder(db)): Promise<SchemaSource> {
  const tables = await db.dialect.introspect(connection);
  const present = new Set(tables.map((t) => t.name));
  // One query at a time: on a transaction's single connection, concurrent queries would only queue anyway.
  const rows: Rows[] = [];
  for (const name of META_TABLES) rows.push(present.has(name) ? ((await connection.select('*').from(name)) as Rows) : []);
  const [collections, fields, relations] = rows as [Rows, Rows, Rows];
  return { tables, collections, fields, relations };
}
