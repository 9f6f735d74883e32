/**
 * The Fastify front end: parsing of URLs and bodies, authentication of every request, one plugin per resource,
 * and the error handler. Routes stay thin: they call services and send what the services return.
 */
import cors from '@fastify/cors';
import underPressure from '@fastify/under-pressure';
import fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import type { TrustProxy } from '../config/scale-config.js';
import type { Accountability } from '../permissions/accountability.js';
import type { AppContext } from '../app/app-context.js';
import {
  ForbiddenError,
  InvalidPayloadError,
  RouteNotFoundError,
  ServiceUnavailableError,
} from '../errors/catalogue.js';
import { clientIp } from './client-ip.js';
import { named } from './plugin-name.js';
import { hasPathParams, nulInPath } from './path-params.js';
import { registerCookies } from './cookies.js';
import { checkJsonText } from '../request/json-text.js';
import { compileBodySchemas } from '../request/body-check.js';
import { consume } from '../bus/rate-limiters.js';
import { errorBody, handleError } from './error-handler.js';
import { extractToken } from './extract-token.js';
import { queryStringParser } from './query-string.js';
import { jsonBodyKey, prototypeKeyReason, queryKeyError, refusedKeyPath } from '../request/prototype-keys.js';
import { StageTimer } from './server-timing.js';
import { adminAppRoutes, STUDIO_DIR } from './routes/admin-app.js';
import { authRoutes } from './routes/auth.js';
import { collectionRoutes } from './routes/collections.js';
import { fieldRoutes } from './routes/fields.js';
import { graphqlRoutes } from './routes/graphql.js';
import { itemRoutes } from './routes/items.js';
import { importRoutes } from './routes/import.js';
import { schemaRoutes } from './routes/schema.js';
import { relationRoutes } from './routes/relations.js';
import { serverRoutes } from './routes/server.js';
import { usersMeRoutes } from './routes/users-me.js';
import { SYSTEM_ROUTES, systemCollectionRoutes } from './routes/system-collections.js';
import { specsRoutes } from './routes/specs.js';
import { docsRoutes } from './routes/docs.js';
import { SpecsService } from '../specs/specs-service.js';
import type { RouteEntry } from '../specs/system-paths.js';
import { utilsRoutes } from './routes/utils.js';
import { websocketRoutes } from './routes/websocket-upgrade.js';
import websocket from '@fastify/websocket';
import { boundConnections, closeWebSockets } from './upgrade-sockets.js';

declare module 'fastify' {
  interface FastifyRequest {
    accountability: Accountability;
    timer: StageTimer;
  }
  interface FastifyInstance {
    /** Every route registered, with the declaration it was registered from, if any (for the OpenAPI document). */
    routeTable: readonly RouteEntry[];
  }
  interface FastifyContextConfig {
    /** The route resolves no caller: it answers anyone (ping, login, static assets). */
    public?: boolean;
    /** `false`: left out of the OpenAPI document (routes that only refuse, such as 405 answers). */
    openapi?: boolean;
  }
}

export interface AppOptions {
  /** Pino options or false; tests pass false. */
  logger?: boolean | object;
  /** Folder of the built admin app; tests point it elsewhere. */
  adminAppDir?: string;
  /**
   * Build now, and again as the schema changes, what requests would otherwise build on first use (default): the
   * request-body validators, and the admin's and the public's GraphQL schemas. Tests pass false: a file uses a few
   * validators, and one that changes the schema dozens of times would rebuild both GraphQL schemas after each change.
   */
  warm?: boolean;
}

/** A hop count as Fastify applies it (its types leave numbers out): the first `hops` addresses are proxies. */
function trustProxyOption(trust: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof trust === 'number' ? (_address, hop) => hop < trust : trust;
}

/**
 * Pino at level `silent` writes nothing, yet Fastify with a logger still makes a child logger and listens for the end
 * of every response to log it; without one it does neither.
 */
function loggerOption(logger: AppOptions['logger']): boolean | object {
  if (logger && typeof logger === 'object' && (logger as { level?: unknown }).level === 'silent') return false;
  return logger ?? false;
}

/**
 * Why a JSON body that Fastify's parser refused was refused, when it is well-formed JSON: its parser (secure-json-parse)
 * refuses `__proto__` keys and `constructor.prototype` as plain "Invalid JSON"; the client is told which key.
 */
function prototypeKeyError(body: string): InvalidPayloadError | null {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return null;
  }
  const path = refusedKeyPath(value, '', jsonBodyKey);
  return path === null ? null : new InvalidPayloadError(prototypeKeyReason(path));
}

export function createApp(context: AppContext, options: AppOptions = {}): FastifyInstance {
  const app = fastify({
    logger: loggerOption(options.logger),
    bodyLimit: context.config.maxPayloadSize,
    routerOptions: {
      querystringParser: queryStringParser({
        depth: context.config.querystring.maxDepth,
        arrayLimit: context.config.querystring.arrayLimit,
      }),
      ignoreTrailingSlash: true,
      // Keys (composite ones escaped) can be long; longer still is answered by frameworkErrors below.
      maxParamLength: 2048,
    },
    trustProxy: trustProxyOption(context.config.ip.trustProxy),
    // Errors of the router itself answer in the catalogue's shape too: a URL that does not decode routes nowhere,
    // and a path segment longer than any key or name names nothing that exists.
    frameworkErrors: (error, request, reply) => {
      const code = (error as { code?: string }).code;
      const mapped =
        code === 'FST_ERR_BAD_URL'
          ? new RouteNotFoundError(request.url.split('?')[0]!)
          : code === 'FST_ERR_MAX_PARAM_LENGTH'
            ? new ForbiddenError()
            : error;
      handleError(mapped, request, reply);
    },
  });
  const ipHeader = context.config.ip.customHeader;

  // Under event-loop pressure, answer 503 at once rather than queue requests until everything times out.
  const pressure = context.config.pressure;
  if (pressure.enabled) {
    void app.register(underPressure, {
      maxEventLoopDelay: pressure.maxEventLoopDelayMs,
      maxEventLoopUtilization: pressure.maxEventLoopUtilization,
      sampleInterval: pressure.sampleIntervalMs,
      // A rejected promise hands the error to the error handler, which writes the catalogue body.
      pressureHandler: async (_request, reply) => {
        void reply.header('retry-after', '1');
        throw new ServiceUnavailableError('api', 'Under pressure');
      },
    });
  }

  app.addHttpMethod('SEARCH', { hasBody: true });
  registerCookies(app);
  const { cors: corsConfig } = context.config;
  if (corsConfig.enabled) {
    // Preflights are answered before authentication (browsers send no credentials with them).
    void app.register(cors, {
      origin: corsConfig.origin,
      methods: corsConfig.methods,
      allowedHeaders: corsConfig.allowedHeaders,
      exposedHeaders: corsConfig.exposedHeaders,
      credentials: corsConfig.credentials,
      maxAge: corsConfig.maxAge,
    });
  }
  // Bodies are JSON only: any other content type is 415 UNSUPPORTED_MEDIA_TYPE (Directus docs: API reference).
  app.removeContentTypeParser('text/plain');
  // An empty JSON body is no body (clients such as @directus/sdk send the JSON content type on every request,
  // DELETE /items/c/1 included); routes that need a body answer INVALID_PAYLOAD themselves.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') return done(null, undefined);
    try {
      checkJsonText(body as string, context.config.maxJsonDepth);
    } catch (error) {
      return done(error as Error, undefined);
    }
    parseJson(request, body as string, (error, value) =>
      done(error && (prototypeKeyError(body as string) ?? error), value),
    );
  });
  app.decorateRequest('accountability', null as unknown as Accountability);
  app.decorateRequest('timer', null as unknown as StageTimer);

  // The stage timer starts before the body is read: in an onRequest hook of the routes whose methods carry one (and of
  // every route when a rate limiter is on). A GET does nothing between onRequest and preHandler, so its timer is made
  // there, or when the reply is sent if the request failed before (an onRequest hook costs every request its runner).
  const timerOf = (request: FastifyRequest): StageTimer => (request.timer ??= new StageTimer());
  app.addHook('onRoute', (route) => {
    if ([route.method].flat().every((method) => method === 'GET' || method === 'HEAD')) return;
    const own = route.onRequest ? [route.onRequest].flat() : [];
    const params = hasPathParams(route.url);
    route.onRequest = [
      (request, _reply, done) => {
        timerOf(request);
        // Before the body is read: a NUL in the path is refused whatever the body holds.
        done(params ? nulInPath(request) : undefined);
      },
      ...own,
    ];
  });
  const { perIp, global } = context.rateLimiters;
  if (perIp || global) {
    app.addHook('onRequest', async (request) => {
      timerOf(request);
      if (global) await consume(global, 'all');
      if (perIp) await consume(perIp, clientIp(request, ipHeader));
    });
  }
  // Once closing, responses of requests still in flight end their connection, so the server can finish closing
  // as soon as they are sent (keep-alive would hold it open).
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    reply.header('server-timing', timerOf(request).header());
    done(null, payload);
  });

  // Every request carries an accountability through the whole pipeline; a bad token fails here, before any route.
  // A callback hook: a caller found in the resolver's caches (most requests) costs no promise and no microtask turn.
  // It is attached to each route that needs it when the route is added (and to the not-found handler, so an unknown
  // path with a bad token is refused as before): asking Fastify per request whether the route is public would build
  // its `routeOptions` object on every request.
  const authenticate = (request: FastifyRequest, _reply: unknown, done: (error?: Error) => void): void => {
    const timer = timerOf(request);
    const refused = queryKeyError(request.query, false);
    if (refused) return done(refused);
    let token: string | null;
    let ip: string;
    let quick: Accountability | undefined;
    try {
      token = extractToken(request, context.config.auth.sessionCookie.name);
      ip = clientIp(request, ipHeader);
      quick = context.accountability.resolveCached(token, ip);
    } catch (error) {
      return done(error as Error);
    }
    if (quick) {
      request.accountability = quick;
      timer.mark('auth');
      return done();
    }
    context.accountability.resolve(token, ip).then((accountability) => {
      request.accountability = accountability;
      timer.mark('auth');
      done();
    }, done);
  };
  // A public route still gets its stage timer where the authentication would have made it.
  const startTimer = (request: FastifyRequest, _reply: unknown, done: (error?: Error) => void): void => {
    timerOf(request);
    done(queryKeyError(request.query, false) ?? undefined);
  };
  // GET and HEAD routes read no body: their NUL check runs here, in the one hook they already have.
  const checkingPath =
    (first: typeof authenticate) =>
    (request: FastifyRequest, reply: unknown, done: (error?: Error) => void): void => {
      const refused = nulInPath(request);
      if (refused) return done(refused);
      first(request, reply, done);
    };
  app.addHook('onRoute', (route) => {
    const own = route.preHandler ? [route.preHandler].flat() : [];
    const first = route.config?.public ? startTimer : authenticate;
    const bodiless = [route.method].flat().every((method) => method === 'GET' || method === 'HEAD');
    route.preHandler = [bodiless && hasPathParams(route.url) ? checkingPath(first) : first, ...own];
  });

  app.setErrorHandler((error, request, reply) => handleError(error, request, reply));
  app.setNotFoundHandler({ preHandler: authenticate }, (request, reply) => {
    const error = new RouteNotFoundError(request.url.split('?')[0]!);
    void reply.code(error.status).type('application/json; charset=utf-8').send(errorBody(error));
  });

  // The route table, for the OpenAPI document (every route there is, described or not).
  const routes: RouteEntry[] = [];
  app.addHook('onRoute', (route) => {
    if (route.config?.openapi === false) return;
    const declaration = route.config?.declaration;
    for (const method of [route.method].flat()) routes.push({ method, url: route.url, declaration });
  });
  app.decorate('routeTable', routes);
  const systemPaths = Object.fromEntries([
    ...Object.entries(SYSTEM_ROUTES).map(([route, table]) => [table, `/${route}`]),
    ['service_settings', '/settings'],
  ]);
  const specs = new SpecsService(context, routes, systemPaths);

  app.register(named('server', serverRoutes(context)));
  app.register(
    named(
      'specs',
      specsRoutes(specs, () => context.schema.current),
    ),
  );
  if (context.config.docs.enabled) app.register(named('docs', docsRoutes(context.config.docs.publicUrl)));
  app.register(named('auth', authRoutes(context)));
  app.register(named('item', itemRoutes(context)), { prefix: '/items' });
  app.register(named('usersMe', usersMeRoutes(context)));
  app.register(named('systemCollection', systemCollectionRoutes(context)));
  app.register(named('field', fieldRoutes(context)));
  app.register(named('collection', collectionRoutes(context)));
  app.register(named('relation', relationRoutes(context)));
  app.register(named('utils', utilsRoutes(context)));
  app.register(named('import', importRoutes(context)), { prefix: '/utils' });
  app.register(named('schema', schemaRoutes(context)));
  // One WebSocket server for /websocket and GraphQL's socket (registered once, before the routes that upgrade).
  const sockets = context.config.websockets.enabled || context.config.graphqlSockets.enabled;
  boundConnections(app, sockets, context.config.shutdownTimeoutMs);
  if (sockets)
    app.register(websocket, {
      options: { maxPayload: context.config.websockets.limits.maxMessageBytes * 2 },
      preClose: closeWebSockets,
    });
  app.register(named('graphql', graphqlRoutes(context, specs, options.warm !== false)));
  if (context.config.websockets.enabled) app.register(named('websocket', websocketRoutes(context, ipHeader)));
  if (context.config.adminApp) app.register(named('adminApp', adminAppRoutes(options.adminAppDir ?? STUDIO_DIR)));
  if (options.warm !== false) compileBodySchemas();

  return app;
}
