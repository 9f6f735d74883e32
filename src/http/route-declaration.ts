/**
 * One declaration per route: its method and path, what it is for, who may call it, and the TypeBox schemas of its
 * body and query string. The route is registered from it (declareRoute) and the OpenAPI document is written from it
 * (specs/system-paths.ts reads it back from the route table), so the two cannot drift apart.
 *
 * The schemas are the very objects the input parsing checks (request/, schema-admin/input/) — not Fastify route
 * schemas: Fastify validates before the preHandler hook that authenticates, and a caller must be told 401/403 before
 * anything about its body (docs/design/pipeline.md). test/api/route-declarations.test.ts proves, route by route,
 * that the schema the document shows is a schema the request is checked against.
 */
import type { TSchema } from '@sinclair/typebox';
import type {
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
  RouteHandlerMethod,
  RouteOptions,
} from 'fastify';

/** Who sees a route in the document: anyone, signed-in users, readers of the schema metadata, admins. */
export type Audience = 'anyone' | 'user' | 'schema' | 'admin';

/**
 * The success answer: `data` for `{data: ...}` as JSON, `media` + `schema` for a body of its own type, neither for
 * no body; `null` (as the declaration's `response`) for 204.
 */
export interface RouteAnswer {
  description: string;
  data?: TSchema;
  media?: string;
  schema?: TSchema;
}

export interface RouteDeclaration {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** The full path in Fastify's form (`/fields/:collection/:field`): plugins that declare routes take no prefix. */
  url: string;
  summary: string;
  tags: string[];
  audience: Audience;
  /** The body as the input parsing checks it; absent: the route reads no body. */
  body?: TSchema;
  /** `false`: the route also answers with no body at all (refresh and logout read the cookie then). */
  bodyRequired?: false;
  /** The query parameters as the route checks them (an object schema: one parameter per property). */
  querystring?: TSchema;
  /** `null`: 204 only. */
  response: RouteAnswer | null;
  /** The route resolves no caller (ping, login); the document says it needs no credentials. */
  public?: true;
  /** A public route that resolves a token itself when one is sent (health): the document keeps the credentials. */
  readsToken?: true;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The declaration the route was registered from (declareRoute). */
    declaration?: RouteDeclaration;
  }
}

/** Registers the declared route; `options` adds what the declaration does not say (websocket handlers). */
export function declareRoute<G extends RouteGenericInterface = RouteGenericInterface>(
  app: FastifyInstance,
  declaration: RouteDeclaration,
  handler: RouteHandlerMethod<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, G>,
  options: Partial<RouteOptions> = {},
): void {
  app.route<G>({
    ...options,
    method: declaration.method,
    url: declaration.url,
    config: { ...(declaration.public ? { public: true } : {}), declaration },
    handler,
  });
}
