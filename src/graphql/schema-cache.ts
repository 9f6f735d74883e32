/**
 * Schemas per (schema version, permission set), in a bounded LRU. A permission set is the object the permission
 * store caches per policy set, so a permissions change (which drops those objects) also yields new schemas; a new
 * overview clears them all (the `overview` change of cache/invalidation.ts). The admin's and the public's schemas
 * are built as soon as a new schema overview loads, off the request path (unless the app is told not to warm, as
 * tests do).
 */
import type { Cache } from '../cache/cache.js';
import type { Accountability } from '../permissions/accountability.js';
import type { PermissionSet } from '../permissions/permission-store.js';
import type { GraphQLApi } from './context.js';
import { buildAccessView } from './access-view.js';
import { DocumentCache } from './document-cache.js';
import { buildSchemas, type Schemas } from './schema-builder.js';

const MAX_SCHEMAS = 100;

export interface CachedSchemas extends Schemas {
  key: string;
  documents: DocumentCache;
}

export class SchemaCache {
  private readonly cache: Cache<string, CachedSchemas>;
  private readonly setIds = new WeakMap<PermissionSet, number>();
  private nextSetId = 1;

  /** `warm` false: schemas are only built for the request that needs them. */
  constructor(
    private readonly app: GraphQLApi,
    warm = true,
  ) {
    this.cache = app.caches.create('graphql-schemas', { max: MAX_SCHEMAS });
    // The overview's listener (app/build-engine.ts, loadSchema) has cleared the schemas of the old one by now.
    app.schema.onLoad(() => {
      if (warm) setImmediate(() => void this.warm());
    });
    // The overview loaded at start is already there: warm for it too.
    if (warm) setImmediate(() => void this.warm());
  }

  async forCaller(accountability: Accountability): Promise<CachedSchemas> {
    const overview = this.app.schema.current;
    const permissions = await this.app.access.permissionsOf(accountability);
    const key = `${overview.version}|${permissions ? this.setId(permissions) : 'admin'}`;
    let cached = this.cache.get(key);
    if (!cached) {
      const view = buildAccessView(overview, accountability, permissions, (collection, action) =>
        this.app.writer.canWrite(collection.collection, action, accountability, permissions, {
          system: collection.system,
        }),
      );
      const limits = {
        queryLimitMax: this.app.config.queryLimitMax,
        maxRelationalDepth: this.app.config.maxRelationalDepth,
      };
      cached = {
        ...buildSchemas(overview, view, accountability.admin, limits, this.app.config.graphqlSockets.enabled),
        key,
        documents: new DocumentCache(this.app.config.graphql),
      };
      this.cache.set(key, cached);
    }
    return cached;
  }

  private setId(set: PermissionSet): number {
    let id = this.setIds.get(set);
    if (id === undefined) this.setIds.set(set, (id = this.nextSetId++));
    return id;
  }

  /** Builds the admin's and the public's schemas for the current overview. */
  private async warm(): Promise<void> {
    const admin: Accountability = { user: null, role: null, roles: [], policies: [], admin: true, app: true, ip: null };
    try {
      await this.forCaller(admin);
      const publicPolicies = await this.app.accountability.resolve(null, null);
      await this.forCaller(publicPolicies);
    } catch {
      // Warming is an optimisation: a failure here shows again, and is reported, on the request that needs it.
    }
  }
}
