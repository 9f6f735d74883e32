/**
 * Holds the current SchemaOverview. `load()` introspects and reads the service_* metadata (start-up and after
 * schema changes); requests only ever read `current`.
 */
import type { Knex } from 'knex';
import type { Database } from '../db/connection.js';
import { buildSchemaOverview } from './overview-builder.js';
import type { SchemaOverview } from './types.js';

const META_TABLES = ['service_collections', 'service_fields', 'service_relations'] as const;

export class SchemaStore {
  private overview: SchemaOverview | null = null;
  private version = 0;
  private readonly listeners = new Set<(overview: SchemaOverview) => void>();

  constructor(private readonly db: Database) {}

  get current(): SchemaOverview {
    if (!this.overview) throw new Error('The schema overview has not been loaded');
    return this.overview;
  }

  async load(): Promise<SchemaOverview> {
    this.version += 1;
    this.overview = await this.read(this.db.knex, this.version);
    for (const listener of this.listeners) listener(this.overview);
    return this.overview;
  }

  /**
   * The overview as `knex` sees it (a transaction's connection sees its own uncommitted changes), neither kept nor
   * announced: a multi-step schema change plans each step against it.
   */
  async read(knex: Knex, version = this.version): Promise<SchemaOverview> {
    const tables = await this.db.dialect.introspect(knex);
    const present = new Set(tables.map((t) => t.name));
    // One query at a time: on a transaction's single connection, concurrent queries would only queue anyway.
    const rows: Record<string, unknown>[][] = [];
    for (const name of META_TABLES) rows.push(present.has(name) ? ((await knex.select('*').from(name)) as Record<string, unknown>[]) : []);
    const [collections, fields, relations] = rows as [Record<string, unknown>[], Record<string, unknown>[], Record<string, unknown>[]];
    return buildSchemaOverview({
      tables,
      collections,
      fields,
      relations,
      mapType: (column) => this.db.dialect.mapType(column),
      version,
    });
  }

  /** Called after every load (caches that build from the overview, such as GraphQL schemas, warm up here). */
  onLoad(listener: (overview: SchemaOverview) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
