/**
 * The Fastify instance and what it answers before any route runs: its router's settings (and the catalogue's shape
 * for the router's own errors), 503 under event-loop pressure, and CORS preflights.
 */
import cors from '@fastify/cors';
import underPressure from '@fastify/under-pressure';
import fastify, { type FastifyInstance } from 'fastify';
import type { Config } from '../config/config.js';
import type { TrustProxy } from '../config/scale-config.js';
import { ForbiddenError, RouteNotFoundError, ServiceUnavailableError } from '../errors/catalogue.js';
import { handleError } from './error-handler.js';
import { queryStringParser } from './query-string.js';

/** A hop count as Fastify applies it (its types leave numbers out): the first `hops` addresses are proxies. */
function trustProxyOption(trust: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof trust === 'number' ? (_address, hop) => hop < trust : trust;
}

/**
 * Pino at level `silent` writes nothing, yet Fastify with a logger still makes a child logger and listens for the end
 * of every response to log it; without one it does neither.
 */
function loggerOption(logger: boolean | object | undefined): boolean | object {
  if (logger && typeof logger === 'object' && (logger as { level?: unknown }).level === 'silent') return false;
  return logger ?? false;
}

export function createServer(config: Config, logger: boolean | object | undefined): FastifyInstance {
  return fastify({
    logger: loggerOption(logger),
    bodyLimit: config.maxPayloadSize,
    routerOptions: {
      querystringParser: queryStringParser({
        depth: config.querystring.maxDepth,
        arrayLimit: config.querystring.arrayLimit,
      }),
      ignoreTrailingSlash: true,
      // Keys (composite ones escaped) can be long; longer still is answered by frameworkErrors below.
      maxParamLength: 2048,
    },
    trustProxy: trustProxyOption(config.ip.trustProxy),
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
}

/** Under event-loop pressure, answer 503 at once rather than queue requests until everything times out. */
export function registerPressure(app: FastifyInstance, pressure: Config['pressure']): void {
  if (!pressure.enabled) return;
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

/** Preflights are answered before authentication (browsers send no credentials with them). */
export function registerCors(app: FastifyInstance, corsConfig: Config['cors']): void {
  if (!corsConfig.enabled) return;
  void app.register(cors, {
    origin: corsConfig.origin,
    methods: corsConfig.methods,
    allowedHeaders: corsConfig.allowedHeaders,
    exposedHeaders: corsConfig.exposedHeaders,
    credentials: corsConfig.credentials,
    maxAge: corsConfig.maxAge,
  });
}
