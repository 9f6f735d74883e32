/**
 * Endpoint extensions, mounted under `/{id}` with Express's Router (an Express app per endpoint, so `res.json`,
 * `req.params`, `req.query` and error middleware behave as in Directus). Strata's routes come first: an extension's
 * paths are served from Fastify's not-found handler, after the caller is authenticated, so `req.accountability` is
 * the caller's as Directus sets it. The body Fastify parsed is handed over as `req.body`. A thrown error (or a
 * rejected async handler) answers as a coded error; an endpoint that has not answered after EXTENSIONS_ENDPOINT_TIMEOUT
 * answers 503.
 */
import http from 'node:http';
import express from 'express';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RouteNotFoundError, ServiceError, ServiceUnavailableError } from '../errors/catalogue.js';
import { hookError } from '../engine/events/hook-errors.js';
import type { ExtensionContext } from './extension-context.js';

export type EndpointHandler = (router: express.Router, context: ExtensionContext) => unknown;

type RawRequest = FastifyRequest['raw'] & { accountability?: unknown; body?: unknown };

const ID = /^[a-z0-9][a-z0-9_-]{0,63}$/i;
/** Each endpoint app's own request and response prototypes, as Express made them. */
const ORIGINALS = new WeakMap<express.Express, { request: object; response: object }>();

export function validEndpointId(id: unknown): id is string {
  return typeof id === 'string' && ID.test(id);
}

function errorJson(error: ServiceError) {
  return { errors: [{ message: error.message, extensions: { ...error.extensions, code: error.code } }] };
}

/** The Express app of one endpoint: its router under `/{id}`, then Directus-shaped 404 and error answers. */
export function endpointApp(id: string, handler: EndpointHandler, context: ExtensionContext): express.Express {
  const router = express.Router();
  handler(router, context);
  const app = express();
  app.disable('x-powered-by');
  ORIGINALS.set(app, { request: app.request, response: app.response });
  app.use(`/${id}`, router);
  app.use((req, res) => {
    const error = new RouteNotFoundError(req.originalUrl.split('?')[0]!);
    res.status(error.status).json(errorJson(error));
  });
  app.use((err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    const error = hookError(err);
    if (res.headersSent) return void res.end();
    res.status(error.status).json(errorJson(error));
  });
  return app;
}

/** Hands the request to the endpoint's Express app; resolves once it has answered (or timed out). */
export function dispatch(
  app: express.Express,
  request: FastifyRequest,
  reply: FastifyReply,
  timeoutMs: number,
): Promise<void> {
  const raw = request.raw as RawRequest;
  raw.accountability = request.accountability;
  // Fastify has read and parsed the body: an endpoint reads it here, as Directus's global parser leaves it.
  if (request.body !== undefined) raw.body = request.body;
  void reply.hijack();
  const res = reply.raw;
  // Headers Strata's hooks set on the reply (CORS, rate limits) are written by the endpoint's answer too.
  for (const [name, value] of Object.entries(reply.getHeaders()))
    if (value !== undefined && !res.headersSent) res.setHeader(name, value as string | number | string[]);
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      if (!res.headersSent) {
        const error = new ServiceUnavailableError('endpoint', `The endpoint did not answer within ${timeoutMs}ms`);
        res.writeHead(error.status, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(errorJson(error)));
      } else res.destroy();
      resolve();
    }, timeoutMs);
    timer.unref();
    res.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    try {
      adoptPrototypes(app, raw, res);
      app(raw, res);
    } catch (error) {
      const coded = hookError(error);
      if (!res.headersSent) {
        res.writeHead(coded.status, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(errorJson(coded)));
      }
    }
  });
}

/**
 * Express gives the request and response its own prototypes (app.request / app.response, over Node's
 * IncomingMessage and ServerResponse). When they are other classes (Fastify's `inject` hands over light-my-request's),
 * the app's methods are laid over the objects' own prototypes instead, so that their own methods (how `inject`
 * collects the answer) stay. Express reads these as it starts handling, synchronously: setting them per request is safe.
 */
function adoptPrototypes(app: express.Express, req: object, res: object): void {
  const original = ORIGINALS.get(app)!;
  const over = (target: object, node: object, mine: object, methods: object): object => {
    if (Object.getPrototypeOf(target) === node) return mine;
    const proto = Object.create(Object.getPrototypeOf(target) as object) as object;
    Object.defineProperties(proto, Object.getOwnPropertyDescriptors(methods));
    Object.defineProperty(proto, 'app', { value: app, configurable: true, enumerable: true, writable: true });
    return proto;
  };
  app.request = over(req, http.IncomingMessage.prototype, original.request, express.request) as typeof app.request;
  app.response = over(res, http.ServerResponse.prototype, original.response, express.response) as typeof app.response;
}
