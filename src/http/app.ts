/**
 * The Fastify front end: parsing of URLs and bodies, authentication of every request, one plugin per resource,
 * and the error handler. Routes stay thin: they call services and send what the services return. Each step is in its
 * own file; this one puts them in order.
 */
import type { FastifyInstance } from 'fastify';
import type { Accountability } from '../permissions/accountability.js';
import type { AppContext } from '../app/app-context.js';
import { RouteNotFoundError } from '../errors/catalogue.js';
import { dispatch } from '../extensions/endpoint-bridge.js';
import { Extensions } from '../extensions/extensions-manager.js';
import type { StageTimer } from './server-timing.js';
import type { RouteEntry } from '../specs/system-paths.js';
import { registerAuthentication, type PreHandler } from './authenticate.js';
import { registerCookies } from './cookies.js';
import { errorBody, handleError } from './error-handler.js';
import { createServer, registerCors, registerPressure } from './fastify-server.js';
import { registerJsonBodies } from './json-bodies.js';
import { registerRoutes } from './register-routes.js';
import { registerRequestHooks } from './request-hooks.js';
import type { AppOptions } from './app-options.js';
import { WORKER_HEADER } from '../workers/worker-side.js';

export type { AppOptions } from './app-options.js';

declare module 'fastify' {
  interface FastifyRequest {
    accountability: Accountability;
    timer: StageTimer;
  }
  interface FastifyInstance {
    /** Every route registered, with the declaration it was registered from, if any (for the OpenAPI document). */
    routeTable: readonly RouteEntry[];
    /** The loaded extensions (hooks, endpoints), reloadable. */
    extensions: Extensions;
  }
  interface FastifyContextConfig {
    /** The route resolves no caller: it answers anyone (ping, login, static assets). */
    public?: boolean;
    /** `false`: left out of the OpenAPI document (routes that only refuse, such as 405 answers). */
    openapi?: boolean;
  }
}

/** Errors thrown anywhere answer in the catalogue's shape; an unknown path is 404 once its caller is resolved. */
function registerErrorHandling(
  app: FastifyInstance,
  authenticate: PreHandler,
  extensions: Extensions,
  endpointTimeoutMs: number,
): void {
  app.setErrorHandler((error, request, reply) => handleError(error, request, reply));
  app.setNotFoundHandler({ preHandler: authenticate }, (request, reply) => {
    // Paths of Strata's own routes never get here: an endpoint extension serves only what they leave.
    const endpoint = extensions.endpoint(request.url.split(/[/?]/, 2)[1] ?? '');
    if (endpoint) return dispatch(endpoint, request, reply, endpointTimeoutMs);
    const error = new RouteNotFoundError(request.url.split('?')[0]!);
    void reply.code(error.status).type('application/json; charset=utf-8').send(errorBody(error));
  });
}

/** Which worker answered (WORKERS > 1): Directus clients ignore a header they do not know. */
function nameWorker(app: FastifyInstance, worker: string): void {
  app.addHook('onRequest', (_request, reply, done) => {
    void reply.header(WORKER_HEADER, worker);
    done();
  });
  // A socket's handshake is written by ws, not by the reply: the header goes into it there.
  app.addHook('onReady', (done) => {
    if (app.hasDecorator('websocketServer'))
      app.websocketServer.on('headers', (headers: string[]) => headers.push(`X-Strata-Worker: ${worker}`));
    done();
  });
}

export function createApp(context: AppContext, options: AppOptions = {}): FastifyInstance {
  const { config } = context;
  const app = createServer(config, options.logger);
  registerPressure(app, config.pressure);
  if (options.worker) nameWorker(app, options.worker);
  app.addHttpMethod('SEARCH', { hasBody: true });
  registerCookies(app);
  registerCors(app, config.cors);
  registerJsonBodies(app, config.maxJsonDepth);
  registerRequestHooks(app, context.rateLimiters, config.ip.customHeader);
  // Only with METRICS_ENABLED: otherwise no hook is added and the request path is unchanged.
  context.prometheus?.watchHttp(app);
  const authenticate = registerAuthentication(app, context);
  const extensions = new Extensions(context, { info: (m) => app.log.info(m), warn: (m) => app.log.warn(m) });
  app.decorate('extensions', extensions);
  registerErrorHandling(app, authenticate, extensions, config.extensions.endpointTimeoutMs);
  registerRoutes(app, context, options);
  // Loaded before the server is ready (hooks see the first request); removed when it closes.
  app.register(async () => extensions.start());
  app.addHook('onClose', async () => extensions.close());
  return app;
}
