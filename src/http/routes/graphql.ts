/**
 * /graphql and /graphql/system (Directus docs: GraphQL): GET for queries (`?query=&variables=&operationName=`), POST for
 * everything; other methods 405. And /server/specs/graphql/{items|system}: the caller's schema as SDL.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { MethodNotAllowedError, RouteNotFoundError } from '../../errors/catalogue.js';
import type { GraphQLContext } from '../../graphql/context.js';
import { GraphQLService, type Scope } from '../../graphql/graphql-service.js';
import { Type } from '@sinclair/typebox';
import { GraphQLRequestBody, parseGraphQLRequest, type GraphQLRequest } from '../../request/graphql-body.js';
import { deepFreeze } from '../query-string.js';
import type { GraphQLSocketApi } from '../../realtime/graphql-ws/server.js';
import { applyCookies, clientInfo } from '../auth-cookies.js';
import type { SpecsService } from '../../specs/specs-service.js';
import { declareRoute, type RouteAnswer, type RouteDeclaration } from '../route-declaration.js';
import { graphqlSocketHandler } from './graphql-ws-upgrade.js';
import { cachedRead } from '../cached-read.js';

const OTHER_METHODS = ['PUT', 'PATCH', 'DELETE', 'SEARCH'] as const;

const answer: RouteAnswer = {
  description: 'The GraphQL answer (errors of resolvers beside the data)',
  media: 'application/json',
  schema: Type.Object({ data: Type.Optional(Type.Unknown()), errors: Type.Optional(Type.Array(Type.Object({}))) }),
};
const tags = ['GraphQL'];
/** A GET carries the request in its query string, checked as a POST body is. */
export const GRAPHQL_ROUTES = {
  itemsGet: {
    method: 'GET',
    url: '/graphql',
    summary: 'GraphQL query over the user collections (`query`, `variables`, `operationName` in the query string)',
    tags,
    audience: 'anyone',
    querystring: GraphQLRequestBody,
    response: answer,
  },
  itemsPost: {
    method: 'POST',
    url: '/graphql',
    summary: 'GraphQL query or mutation over the user collections',
    tags,
    audience: 'anyone',
    body: GraphQLRequestBody,
    response: answer,
  },
  systemGet: {
    method: 'GET',
    url: '/graphql/system',
    summary: 'GraphQL query over the system collections and server fields',
    tags,
    audience: 'anyone',
    querystring: GraphQLRequestBody,
    response: answer,
  },
  systemPost: {
    method: 'POST',
    url: '/graphql/system',
    summary: 'GraphQL query or mutation over the system collections',
    tags,
    audience: 'anyone',
    body: GraphQLRequestBody,
    response: answer,
  },
  sdl: {
    method: 'GET',
    url: '/server/specs/graphql/:scope',
    summary: 'The caller’s GraphQL schema (SDL)',
    tags: ['Server'],
    audience: 'anyone',
    response: { description: 'GraphQL SDL', media: 'text/plain', schema: Type.String() },
  },
} satisfies Record<string, RouteDeclaration>;

/**
 * Parses a GraphQL request. A repeated GET query string is the same frozen object (http/query-string.ts): its checked
 * request is kept with it, frozen too. Failures are not kept: such a request fails again the same way.
 */
function requestParser(maxJsonDepth: number): (source: unknown) => GraphQLRequest {
  const checked = new WeakMap<object, GraphQLRequest>();
  return (source) => {
    const frozen = source && typeof source === 'object' && Object.isFrozen(source) ? source : null;
    let parsed = frozen && checked.get(frozen);
    if (!parsed) {
      parsed = parseGraphQLRequest(source, maxJsonDepth);
      if (frozen) checked.set(frozen, deepFreeze(parsed));
    }
    return parsed;
  };
}

/** `warm`: build the admin's and the public's schemas as each schema overview loads (createApp's option). */
export function graphqlRoutes(context: GraphQLSocketApi, specs: SpecsService, warm = true): FastifyPluginAsync {
  const service = new GraphQLService(context, warm);
  const parse = requestParser(context.config.maxJsonDepth);

  const run = async (
    scope: Scope,
    method: 'GET' | 'POST',
    source: unknown,
    request: FastifyRequest,
    reply: FastifyReply,
  ) => {
    const parsed = parse(source);
    request.timer.mark('parse');
    const ctx: GraphQLContext = {
      app: context,
      accountability: request.accountability,
      marks: request.timer,
      // Only auth mutations read these: a query does not build them.
      get client() {
        return clientInfo(request, context.config.ip.customHeader);
      },
      get cookies() {
        return request.cookies;
      },
      cookieChanges: [],
      sdl: (scope) => service.sdl(scope, request.accountability),
      oas: () => specs.oasDocument(request.accountability),
    };
    const execute = async () => {
      let body: string;
      try {
        body = await service.execute(scope, parsed, method, ctx, request.log);
      } catch (error) {
        if (error instanceof MethodNotAllowedError) void reply.header('allow', 'POST');
        throw error;
      }
      if (ctx.cookieChanges.length) request.timer.uncacheable();
      applyCookies(reply, ctx.cookieChanges);
      return body;
    };
    // Queries over the user collections share the response cache with REST (the system scope holds accounts).
    if (scope === 'items' && context.responses && !context.items.hasQueryHooks(null)) {
      const material = `GRAPHQL\u0000${parsed.query}\u0000${JSON.stringify(parsed.variables ?? null)}\u0000${parsed.operationName ?? ''}`;
      return cachedRead(context.responses, context.config.responseCache, request, reply, material, execute);
    }
    return reply.type('application/json; charset=utf-8').send(await execute());
  };

  const sockets = context.config.graphqlSockets;
  const socketRoute = sockets.enabled ? graphqlSocketHandler(context, service, specs) : undefined;
  const wsHandler = socketRoute?.wsHandler;

  return async (app) => {
    // GraphQL's socket on a path of its own (WEBSOCKETS_GRAPHQL_PATH other than the HTTP routes').
    if (wsHandler && sockets.path !== '/graphql' && sockets.path !== '/graphql/system')
      app.get(
        sockets.path,
        {
          websocket: true,
          config: { public: true, openapi: false },
          preValidation: socketRoute!.preValidation,
        },
        wsHandler,
      );
    for (const [scope, get, post] of [
      ['items', GRAPHQL_ROUTES.itemsGet, GRAPHQL_ROUTES.itemsPost],
      ['system', GRAPHQL_ROUTES.systemGet, GRAPHQL_ROUTES.systemPost],
    ] as const) {
      const path = get.url;
      declareRoute(
        app,
        get,
        async (request, reply) => run(scope, 'GET', request.query, request, reply),
        // The upgrade to GraphQL's socket on the same path (graphql-ws), when it is on.
        wsHandler && sockets.path === path ? { wsHandler, preValidation: socketRoute!.preValidation } : {},
      );
      declareRoute(app, post, async (request, reply) => run(scope, 'POST', request.body, request, reply));
      app.route({
        method: [...OTHER_METHODS],
        url: path,
        config: { openapi: false },
        handler: async (_request, reply) => {
          void reply.header('allow', 'GET, POST');
          throw new MethodNotAllowedError(['GET', 'POST']);
        },
      });
    }

    declareRoute<{ Params: { scope: string } }>(app, GRAPHQL_ROUTES.sdl, async (request, reply) => {
      const scope = request.params.scope;
      if (scope !== 'items' && scope !== 'system') throw new RouteNotFoundError(request.url.split('?')[0]!);
      const sdl = await service.sdl(scope, request.accountability);
      return reply
        .header('content-disposition', `attachment; filename="${scope}.graphql"`)
        .type('text/plain; charset=utf-8')
        .send(sdl);
    });
  };
}
