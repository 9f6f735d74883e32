/**
 * Hooks every request passes through whatever its route: its stage timer (the `Server-Timing` header), the NUL check
 * of its path before the body is read, the rate limiters, and `connection: close` once the server is closing or when
 * the answer comes before the request's body was read to its end.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { consume, type RateLimiters } from '../bus/rate-limiters.js';
import type { Accountability } from '../permissions/accountability.js';
import { clientIp } from './client-ip.js';
import { hasPathParams, nulInPath } from './path-params.js';
import { StageTimer } from './server-timing.js';

/** The request's stage timer, made on first use. */
export const timerOf = (request: FastifyRequest): StageTimer => (request.timer ??= new StageTimer());

export function registerRequestHooks(app: FastifyInstance, rateLimiters: RateLimiters, ipHeader: string | null): void {
  app.decorateRequest('accountability', null as unknown as Accountability);
  app.decorateRequest('timer', null as unknown as StageTimer);

  // The stage timer starts before the body is read: in an onRequest hook of the routes whose methods carry one (and of
  // every route when a rate limiter is on). A GET does nothing between onRequest and preHandler, so its timer is made
  // there, or when the reply is sent if the request failed before (an onRequest hook costs every request its runner).
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
  const { perIp, global } = rateLimiters;
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
    if (closing || bodyLeftUnread(request)) reply.header('connection', 'close');
    reply.header('server-timing', timerOf(request).header());
    done(null, payload);
  });
}

/**
 * The answer is sent before the body was read to its end (a refusal before reading it, a failed import part-way
 * through a large upload). Kept alive, the connection would wait for the rest of a body that nothing reads any more:
 * the client, paused by TCP, never finishes sending, and the connection stays open until a timeout minutes later,
 * holding shutdown for SHUTDOWN_TIMEOUT. Closed after the answer (as Fastify does for a body over its limit), the
 * client gets the error at once and stops sending. Injected requests have no `complete` flag: nothing to close.
 */
function bodyLeftUnread(request: FastifyRequest): boolean {
  const { raw } = request;
  if (raw.complete !== false) return false;
  const length = raw.headers['content-length'];
  return (length !== undefined && length !== '0') || raw.headers['transfer-encoding'] !== undefined;
}
