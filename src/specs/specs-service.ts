/**
 * The OpenAPI document per caller, cached as JSON text per (schema version, permission set, signed in or not,
 * OpenAPI version): a permissions change yields new permission-set objects, a schema change a new version, hence
 * new documents. The cache is bounded by size (a large schema's document runs to megabytes), least recently used
 * first out.
 */
import { buildAccessView } from '../graphql/access-view.js';
import type { Accountability } from '../permissions/accountability.js';
import type { PermissionSet } from '../permissions/permission-store.js';
import type { AppContext } from '../services/app-context.js';
import type { OasVersion } from './json-schema.js';
import { buildOasDocument } from './oas-document.js';
import type { RouteEntry } from './system-paths.js';

/** Characters of cached documents kept at most (documents are ASCII-heavy JSON: about as many bytes). */
const MAX_CACHED_CHARS = 64 * 1024 * 1024;

export class SpecsService {
  private readonly cache = new Map<string, string>();
  private cachedChars = 0;
  private readonly setIds = new WeakMap<PermissionSet, number>();
  private nextSetId = 1;

  /** `routes` is the app's route table (complete once the app is ready); `systemRoutes` maps service_* tables to their REST paths. */
  constructor(
    private readonly app: AppContext,
    private readonly routes: RouteEntry[],
    private readonly systemRoutes: Record<string, string>,
    private readonly maxCachedChars = MAX_CACHED_CHARS,
  ) {}

  /** The caller's document as JSON text. */
  async oas(accountability: Accountability, version: OasVersion = '3.0'): Promise<string> {
    const schema = this.app.schema.current;
    const permissions = accountability.admin ? null : await this.app.permissions.forPolicies(accountability.policies, { app: accountability.app });
    const key = `${schema.version}|${permissions ? this.setId(permissions) : 'admin'}|${accountability.user ? 'user' : 'public'}|${version}`;
    const cached = this.cache.get(key);
    if (cached !== undefined) {
      this.cache.delete(key);
      this.cache.set(key, cached);
      return cached;
    }
    const view = buildAccessView(
      schema,
      accountability,
      permissions,
      (collection, action) => this.app.writer.canWrite(collection.collection, action, accountability, permissions, { system: collection.system }),
      'any',
    );
    const text = JSON.stringify(
      buildOasDocument({
        schema,
        view,
        accountability,
        routes: this.routes,
        systemRoutes: this.systemRoutes,
        // As schema-access.ts decides for /collections, /fields and /relations.
        schemaReader: (metadata) => accountability.admin || accountability.app || (permissions?.for(metadata, 'read').length ?? 0) > 0,
        version,
        publicUrl: this.app.config.docs.publicUrl,
        sessionCookie: this.app.config.auth.sessionCookie.name,
      }),
    );
    this.remember(key, text);
    return text;
  }

  private remember(key: string, text: string): void {
    if (text.length > this.maxCachedChars) return;
    this.cache.set(key, text);
    this.cachedChars += text.length;
    for (const [oldest, value] of this.cache) {
      if (this.cachedChars <= this.maxCachedChars) break;
      this.cache.delete(oldest);
      this.cachedChars -= value.length;
    }
  }

  private setId(set: PermissionSet): number {
    let id = this.setIds.get(set);
    if (id === undefined) this.setIds.set(set, (id = this.nextSetId++));
    return id;
  }
}
