/**
 * The routes other than the collections' (auth, server, GraphQL, schema metadata, the caller's own records, ...),
 * taken from the app's route table so that the document lists every route there is. The ones described here say
 * what they take and answer and who may call them; a route not described yet is listed for admins with a generic
 * answer, never silently left out.
 */
import type { Accountability } from '../permissions/accountability.js';
import { errorResponses } from './common-components.js';
import { dataResponse, json } from './item-paths.js';
import type { JsonSchema } from './json-schema.js';
import { DESCRIBED, type Audience } from './system-route-descriptions.js';

export interface RouteEntry {
  method: string;
  /** Fastify's form: `/fields/:collection/:field`. */
  url: string;
}

const anyData = dataResponse('The answer', {});

const OPERATION_METHODS = new Set(['GET', 'POST', 'PATCH', 'PUT', 'DELETE']);

/** `/fields/:collection/:field/` → `/fields/{collection}/{field}`. */
export function openApiPath(url: string): string {
  const path = url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

export interface SystemPathOptions {
  accountability: Accountability;
  /** May the caller read this metadata endpoint (`service_fields` for /fields): app access or a read rule on it? */
  schemaReader(metadata: string): boolean;
  /** Routes served as collections (items and system collections) or not part of the API (/docs): skipped here. */
  skip(path: string): boolean;
}

export function systemPaths(
  routes: RouteEntry[],
  options: SystemPathOptions,
): Record<string, Record<string, JsonSchema>> {
  const { accountability } = options;
  const allowed = (audience: Audience, path: string) =>
    accountability.admin ||
    audience === 'anyone' ||
    (audience === 'user' && accountability.user !== null) ||
    (audience === 'schema' && options.schemaReader(`service_${path.split('/')[1]}`));
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const method = route.method.toUpperCase();
    if (!OPERATION_METHODS.has(method)) continue;
    const path = openApiPath(route.url);
    if (path.includes('*') || options.skip(path)) continue;
    const described = DESCRIBED[`${method} ${path}`];
    if (!allowed(described?.audience ?? 'admin', path)) continue;
    const parameters = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => ({
      name: match[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    const write = method !== 'GET';
    const operation: JsonSchema = {
      operationId: operationId(method, path),
      summary: described?.summary ?? `${method} ${path}`,
      tags: [described?.tag ?? tagOf(path)],
    };
    if (parameters.length) operation.parameters = parameters;
    if (described?.body) operation.requestBody = { required: true, content: json(described.body) };
    else if (!described && write && method !== 'DELETE') operation.requestBody = { required: false, content: json({}) };
    const answer = described ? described.answer : anyData;
    operation.responses = {
      ...(answer === null ? { '204': { description: 'Done' } } : { '200': answer ?? anyData }),
      ...errorResponses(write),
    };
    if (described?.security === false) operation.security = [];
    (paths[path] ??= {})[method.toLowerCase()] = operation;
  }
  return paths;
}

/** `POST /users/me/tfa/generate` → `postUsersMeTfaGenerate`; `{collection}` → `ByCollection`. */
function operationId(method: string, path: string): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .map((part) => (part.startsWith('{') ? `By_${part.slice(1, -1)}` : part))
    .flatMap((part) => part.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  return method.toLowerCase() + words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('');
}

function tagOf(path: string): string {
  const first = path.split('/').filter(Boolean)[0] ?? 'Server';
  return first[0]!.toUpperCase() + first.slice(1);
}
