/**
 * The routes other than the collections' (auth, server, GraphQL, schema metadata, the caller's own records, ...),
 * taken from the app's route table so that the document lists every route there is. Each is written from the
 * declaration it was registered with (http/route-declaration.ts): its summary, who may call it, and the very TypeBox
 * schemas its body and query are checked against. A route registered without one is listed for admins with a
 * generic answer, never silently left out (and test/api/route-declarations.test.ts fails).
 */
import type { Audience, RouteAnswer, RouteDeclaration } from '../http/route-declaration.js';
import type { Accountability } from '../permissions/accountability.js';
import { errorResponses } from './common-components.js';
import { dataResponse, json } from './item-paths.js';
import type { JsonSchema, OasVersion } from './json-schema.js';
import { openApiSchema } from './typebox-openapi.js';

export interface RouteEntry {
  method: string;
  /** Fastify's form: `/fields/:collection/:field`. */
  url: string;
  declaration?: RouteDeclaration;
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
  version: OasVersion;
  /** May the caller read this metadata endpoint (`service_fields` for /fields): app access or a read rule on it? */
  schemaReader(metadata: string): boolean;
  /** Routes served as collections (items and system collections) or not part of the API (/docs): skipped here. */
  skip(path: string): boolean;
}

export function systemPaths(
  routes: RouteEntry[],
  options: SystemPathOptions,
): Record<string, Record<string, JsonSchema>> {
  const { accountability, version } = options;
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
    const declared = route.declaration;
    if (!allowed(declared?.audience ?? 'admin', path)) continue;
    const operation: JsonSchema = {
      operationId: operationId(method, path),
      summary: declared?.summary ?? `${method} ${path}`,
      tags: declared?.tags ?? [tagOf(path)],
    };
    const parameters = [
      ...[...path.matchAll(/\{([^}]+)\}/g)].map((match) => ({
        name: match[1],
        in: 'path',
        required: true,
        schema: { type: 'string' },
      })),
      ...queryParameters(declared?.querystring && openApiSchema(declared.querystring, version)),
    ];
    if (parameters.length) operation.parameters = parameters;
    const write = method !== 'GET';
    if (declared?.body)
      operation.requestBody = {
        required: declared.bodyRequired !== false,
        content: json(openApiSchema(declared.body, version)),
      };
    else if (!declared && write && method !== 'DELETE') operation.requestBody = { required: false, content: json({}) };
    const answer = declared ? declared.response : undefined;
    operation.responses = {
      ...(answer === null
        ? { '204': { description: 'Done' } }
        : { '200': answer ? response(answer, version) : anyData }),
      ...errorResponses(write),
    };
    if (declared?.public && !declared.readsToken) operation.security = [];
    (paths[path] ??= {})[method.toLowerCase()] = operation;
  }
  return paths;
}

/** An object schema's properties as query parameters. */
function queryParameters(schema: JsonSchema | undefined): JsonSchema[] {
  const properties = (schema?.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema?.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property;
    return { name, in: 'query', required: required.has(name), ...(description ? { description } : {}), schema: rest };
  });
}

function response(answer: RouteAnswer, version: OasVersion): JsonSchema {
  if (answer.data) return dataResponse(answer.description, openApiSchema(answer.data, version));
  if (answer.media && answer.schema)
    return {
      description: answer.description,
      content: { [answer.media]: { schema: openApiSchema(answer.schema, version) } },
    };
  return { description: answer.description };
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
