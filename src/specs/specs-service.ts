/**
 * The OpenAPI document per caller, cached per (schema version, permission set, signed in or not, OpenAPI version):
 * a permissions change yields new permission-set objects, a schema change a new version, hence new documents.
 */
import { buildAccessView } from '../graphql/access-view.js';
import { Lru } from '../graphql/lru.js';
import type { Accountability } from '../permissions/accountability.js';
import type { PermissionSet } from '../permissions/permission-store.js';
import type { AppContext } from '../services/app-context.js';
import type { JsonSchema, OasVersion } from './json-schema.js';
import { buildOasDocument } from './oas-document.js';
import type { RouteEntry } from './system-paths.js';

const MAX_DOCUMENTS = 100;

export interface OasAnswer {
  document: JsonSchema;
  /** The document as JSON text (REST sends it as is). */
  text: string;
}

export class SpecsService {
  private readonly cache = new Lru<string, OasAnswer>(MAX_DOCUMENTS);
  private readonly setIds = new WeakMap<PermissionSet, number>();
  private nextSetId = 1;

  /** `routes` is the app's route table (complete once the app is ready); `systemRoutes` maps service_* tables to their REST paths. */
  constructor(
    private readonly app: AppContext,
    private readonly routes: RouteEntry[],
    private readonly systemRoutes: Record<string, string>,
  ) {}

  async oas(accountability: Accountability, version: OasVersion = '3.0'): Promise<OasAnswer> {
    const schema = this.app.schema.current;
    const permissions = accountability.admin ? null : await this.app.permissions.forPolicies(accountability.policies, { app: accountability.app });
    const key = `${schema.version}|${permissions ? this.setId(permissions) : 'admin'}|${accountability.user ? 'user' : 'public'}|${version}`;
    let answer = this.cache.get(key);
    if (!answer) {
      const view = buildAccessView(
        schema,
        accountability,
        permissions,
        (collection, action) => this.app.writer.canWrite(collection.collection, action, accountability, permissions, { system: collection.system }),
        'any',
      );
      const document = buildOasDocument({
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
      });
      answer = { document, text: JSON.stringify(document) };
      this.cache.set(key, answer);
    }
    return answer;
  }

  private setId(set: PermissionSet): number {
    let id = this.setIds.get(set);
    if (id === undefined) this.setIds.set(set, (id = this.nextSetId++));
    return id;
  }
}
