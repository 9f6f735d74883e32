/**
 * Holds the current SchemaOverview. `load()` introspects and reads the service_* metadata (start-up and after
 * schema changes); requests only ever read `current`.
 */
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
    const tables = await this.db.dialect.introspect(this.db.knex);
    const present = new Set(tables.map((t) => t.name));
    const [collections, fields, relations] = await Promise.all(
      META_TABLES.map((name) => (present.has(name) ? this.db.knex.select('*').from(name) : Promise.resolve([]))),
    );
    this.version += 1;
    this.overview = buildSchemaOverview({
      tables,
      collections: collections as Record<string, unknown>[],
      fields: fields as Record<string, unknown>[],
      relations: relations as Record<string, unknown>[],
      mapType: (column) => this.db.dialect.mapType(column),
      version: this.version,
    });
    for (const listener of this.listeners) listener(this.overview);
    return this.overview;
  }

  /** Called after every load (caches that build from the overview, such as GraphQL schemas, warm up here). */
  onLoad(listener: (overview: SchemaOverview) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
