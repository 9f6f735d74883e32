/**
 * The OpenAPI document of what one caller may do: the collections it may read or write (with the fields it may read,
 * and the writes it may make), the other routes it may call, the shared parameters, error body and auth schemes.
 * Pure: the schema overview, the caller's access view and the route table in, a JSON object out.
 */
import type { AccessView } from '../graphql/access-view.js';
import { SYSTEM_SINGLETONS } from '../graphql/access-view.js';
import type { Accountability } from '../permissions/accountability.js';
import type { SchemaOverview } from '../schema/types.js';
import { VERSION } from '../version.js';
import { ComponentNames, inputSchema, readSchema, type SchemaContext } from './collection-schemas.js';
import { ERROR_SCHEMA, PARAMETERS, RESPONSES, SECURITY, securitySchemes } from './common-components.js';
import { collectionPaths, importPath, type CollectionPaths } from './item-paths.js';
import { OPENAPI_VERSIONS, type JsonSchema, type OasVersion } from './json-schema.js';
import { openApiPath, systemPaths, type RouteEntry } from './system-paths.js';

/** Pages for people rather than API routes: the reference page, the admin app and the root (which redirects to it). */
const NOT_API = ['/', '/docs', '/admin'];

export interface OasInput {
  schema: SchemaOverview;
  view: AccessView;
  accountability: Accountability;
  routes: RouteEntry[];
  /** REST paths of the system collections served like items (`service_users` → `/users`). */
  systemRoutes: Record<string, string>;
  /** May the caller read this metadata collection's endpoint (`service_fields` → /fields)? */
  schemaReader(metadata: string): boolean;
  version: OasVersion;
  publicUrl: string;
  sessionCookie: string;
}

export function buildOasDocument(input: OasInput): JsonSchema {
  const { schema, view, version } = input;
  const names = new ComponentNames(['Error']);
  const ctx: SchemaContext = { schema, view, names, version };
  // Names first: schemas refer to one another.
  const entries = [...view.values()].map((collectionView) => ({
    collectionView,
    component: names.assign(collectionView),
  }));

  const IMPORT = '/utils/import/{collection}';
  const imports = input.routes.some((route) => route.method === 'POST' && openApiPath(route.url) === IMPORT);
  const components: Record<string, JsonSchema> = { Error: ERROR_SCHEMA };
  const paths: Record<string, JsonSchema> = {};
  const tags: JsonSchema[] = [];
  for (const { collectionView, component } of entries) {
    const name = collectionView.collection.collection;
    const base = collectionView.collection.system ? input.systemRoutes[name] : `/items/${encodeURIComponent(name)}`;
    if (!base) continue;
    const entry: CollectionPaths = {
      view: collectionView,
      base,
      singleton: collectionView.collection.singleton || SYSTEM_SINGLETONS.has(name),
      component,
      createInput: names.claim(`Create${component}`),
      updateInput: names.claim(`Update${component}`),
      tag: component,
    };
    if (collectionView.read) components[component] = readSchema(ctx, collectionView);
    if (collectionView.create) components[entry.createInput] = inputSchema(ctx, collectionView, 'create');
    if (collectionView.update) components[entry.updateInput] = inputSchema(ctx, collectionView, 'update');
    Object.assign(paths, collectionPaths(entry));
    if (imports && collectionView.create && !collectionView.collection.system) Object.assign(paths, importPath(entry));
    const tag: JsonSchema = { name: component, 'x-collection': name };
    if (collectionView.collection.meta?.note) tag.description = collectionView.collection.meta.note;
    tags.push(tag);
  }

  // Served above per collection, or not part of the API.
  const collectionBases = Object.values(input.systemRoutes);
  const skip = (path: string) =>
    path === IMPORT ||
    path === '/items' ||
    path.startsWith('/items/') ||
    NOT_API.some((prefix) => path === prefix || path.startsWith(`${prefix}/`)) ||
    collectionBases.some((base) => path === base || path === `${base}/{pk}`);
  const other = systemPaths(input.routes, {
    accountability: input.accountability,
    version,
    schemaReader: input.schemaReader,
    skip,
  });
  for (const [path, operations] of Object.entries(other)) paths[path] = { ...(paths[path] ?? {}), ...operations };

  return {
    openapi: OPENAPI_VERSIONS[version],
    info: {
      title: 'Strata',
      description:
        'The API of this Strata project as the caller may use it: the collections it may read, their fields and the writes it may make.',
      version: VERSION,
    },
    servers: [{ url: input.publicUrl }],
    security: SECURITY,
    tags,
    paths: sortKeys(paths),
    components: {
      schemas: components,
      parameters: PARAMETERS,
      responses: RESPONSES,
      securitySchemes: securitySchemes(input.sessionCookie),
    },
  };
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
