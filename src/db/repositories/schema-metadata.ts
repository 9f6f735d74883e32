/**
 * What the SchemaOverview is built from: the introspected tables and the rows of the metadata tables, as one
 * connection sees them (a schema change's transaction sees its own uncommitted changes).
 */
import type { TableInfo } from '../../schema/types.js';
import { queryBuilder, type Database } from '../connection.js';
import { raised } from '../failure-kind.js';
import { knexOf, type SchemaSession } from '../schema-executor.js';

const META_TABLES = ['service_collections', 'service_fields', 'service_relations'] as const;

type Rows = Record<string, unknown>[];

export interface SchemaSource {
  tables: TableInfo[];
  collections: Rows;
  fields: Rows;
  relations: Rows;
}

/** Through the pool, or through a schema change's session (its transaction). */
export async function readSchemaSource(db: Database, session?: SchemaSession): Promise<SchemaSource> {
  try {
    return await readSource(db, session);
  } catch (error) {
    throw raised(db.dialect, error);
  }
}

async function readSource(db: Database, session?: SchemaSession): Promise<SchemaSource> {
  const connection = session ? knexOf(session) : queryBuilder(db);
  const tables = await db.dialect.introspect(connection);
  const present = new Set(tables.map((t) => t.name));
  // One query at a time: on a transaction's single connection, concurrent queries would only queue anyway.
  const rows: Rows[] = [];
  for (const name of META_TABLES)
    rows.push(present.has(name) ? ((await connection.select('*').from(name)) as Rows) : []);
  const [collections, fields, relations] = rows as [Rows, Rows, Rows];
  return { tables, collections, fields, relations };
}
