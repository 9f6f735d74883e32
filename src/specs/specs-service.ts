/**
 * The OpenAPI document per caller, cached per (schema version, permission set, signed in or not, OpenAPI version)
 * as the object (GraphQL's `server_specs_oas`) and its JSON text (REST): a permissions change yields new
 * permission-set objects, a schema change a new version, hence new documents. The cache is bounded by the size of
 * the texts (a large schema's document runs to megabytes), least recently used first out.
 */
import { Cache } from '../cache/cache.js';
import { buildAccessView } from '../graphql/access-view.js';
import type { Accountability } from '../permissions/accountability.js';
import type { Config } from '../config/config.js';
import type { ItemsWriter } from '../engine/write/items-writer.js';
import type { PermissionSet, PermissionStore } from '../permissions/permission-store.js';
import type { SchemaStore } from '../schema/schema-store.js';
import type { OasVersion } from './json-schema.js';
import { buildOasDocument } from './oas-document.js';
import type { RouteEntry } from './system-paths.js';

/** Characters of cached documents kept at most (documents are ASCII-heavy JSON: about as many bytes). */
const MAX_CACHED_CHARS = 64 * 1024 * 1024;

interface OasEntry {
  document: unknown;
  text: string;
}

/** What a caller's document is built from: the overview, their permissions and what they may write. */
export interface SpecsApi {
  config: Config;
  schema: SchemaStore;
  permissions: PermissionStore;
  writer: ItemsWriter;
}

export class SpecsService {
  private readonly cache: Cache<string, OasEntry>;
  private readonly setIds = new WeakMap<PermissionSet, number>();
  private nextSetId = 1;

  /** `routes` is the app's route table (complete once the app is ready); `systemRoutes` maps service_* tables to their REST paths. */
  constructor(
    private readonly app: SpecsApi,
    private readonly routes: RouteEntry[],
    private readonly systemRoutes: Record<string, string>,
    maxCachedChars = MAX_CACHED_CHARS,
  ) {
    // A document larger than the whole budget is not kept at all.
    this.cache = new Cache('openapi-documents', { maxSize: maxCachedChars, sizeOf: (entry) => entry.text.length });
  }

  /** The caller's document as JSON text. */
  async oas(accountability: Accountability, version: OasVersion = '3.0'): Promise<string> {
    return (await this.entry(accountability, version)).text;
  }

  /** The caller's document as an object (never to be changed: it is shared). */
  async oasDocument(accountability: Accountability, version: OasVersion = '3.0'): Promise<unknown> {
    return (await this.entry(accountability, version)).document;
  }

  private async entry(accountability: Accountability, version: OasVersion): Promise<OasEntry> {
    const schema = this.app.schema.current;
    const permissions = accountability.admin
      ? null
      : await this.app.permissions.forPolicies(accountability.policies, { app: accountability.app });
    const key = `${schema.version}|${permissions ? this.setId(permissions) : 'admin'}|${accountability.user ? 'user' : 'public'}|${version}`;
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached;
    const view = buildAccessView(
      schema,
      accountability,
      permissions,
      (collection, action) =>
        this.app.writer.canWrite(collection.collection, action, accountability, permissions, {
          system: collection.system,
        }),
      'any',
    );
    const document = buildOasDocument({
      schema,
      view,
      accountability,
      routes: this.routes,
      systemRoutes: this.systemRoutes,
      // As schema-access.ts decides for /collections, /fields and /relations.
      schemaReader: (metadata) =>
        accountability.admin || accountability.app || (permissions?.for(metadata, 'read').length ?? 0) > 0,
      version,
      publicUrl: this.app.config.docs.publicUrl,
      sessionCookie: this.app.config.auth.sessionCookie.name,
    });
    const entry = { document, text: JSON.stringify(document) };
    this.cache.set(key, entry);
    return entry;
  }

  private setId(set: PermissionSet): number {
    let id = this.setIds.get(set);
    if (id === undefined) this.setIds.set(set, (id = this.nextSetId++));
    return id;
  }
}
