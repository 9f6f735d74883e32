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

  /**
   * Loads may overlap (a change's own reload beside one another instance's notice asked for): the one that started
   * last read the newest structure, so an earlier one that finishes after it is dropped, never kept.
   */
  async load(): Promise<SchemaOverview> {
    const version = ++this.version;
    const overview = await this.read(undefined, version);
    if (this.overview && this.overview.version > version) return this.overview;
    this.overview = overview;
    for (const listener of this.listeners) listener(overview);
    return overview;
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
