/**
 * Holds the current SchemaOverview. `load()` introspects and reads the service_* metadata (start-up and after
 * schema changes); requests only ever read `current`.
 */
import type { Database } from '../db/connection.js';
import { readSchemaSource } from '../db/repositories/schema-metadata.js';
import type { SchemaSession } from '../db/schema-executor.js';
import { buildSchemaOverview } from './overview-builder.js';
import type { SchemaOverview } from './types.js';

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
    this.overview = await this.read(undefined, this.version);
    for (const listener of this.listeners) listener(this.overview);
    return this.overview;
  }

  /**
   * The overview as `session` sees it (the pool by default; a schema change's session sees its own uncommitted
   * changes), neither kept nor announced: a multi-step schema change plans each step against it.
   */
  async read(session?: SchemaSession, version = this.version): Promise<SchemaOverview> {
    return buildSchemaOverview({
      ...(await readSchemaSource(this.db, session)),
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
