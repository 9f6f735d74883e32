/**
 * A cached read answered as soon as its route is known (an onRequest hook of the cached GET routes), before query
 * parsing, planning and serialisation run, and before the promise turns of the route's own path: the key is made from
 * the raw URL, the caller as the authentication's caches already know them, and the schema — the same key the route's
 * path makes (cached-read.ts), so an answer kept there is found here. Anything not at hand without waiting (a caller
 * or permission set not cached, a store that must be asked, `Cache-Control: no-store` when allowed) goes the route's
 * way, which answers, refuses or misses as before (docs/design/response-cache.md).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CallerApi } from '../app/ports.js';
import type { ResponseCache } from '../cache/response-cache.js';
import { queryKeyError } from '../request/prototype-keys.js';
import { hitReply } from './cached-read.js';
import { clientIp } from './client-ip.js';
import { extractToken } from './extract-token.js';
import { nulInPath } from './path-params.js';
import { timerOf } from './request-hooks.js';

export interface EarlyHitDeps {
  callers: CallerApi;
  cache: ResponseCache;
  /** Whether the request's answers may be kept at all (the route's own rule: user collections without query hooks). */
  cacheable: (request: FastifyRequest) => boolean;
  /** What, beside the caller and the schema, decides the answer: as the route's path computes it. */
  material: (request: FastifyRequest) => string;
}

export type OnRequest = (request: FastifyRequest, reply: FastifyReply, done: () => void) => void;

export function earlyHit(deps: EarlyHitDeps): OnRequest {
  const { callers, cache } = deps;
  const config = callers.config.responseCache;
  const cookie = callers.config.auth.sessionCookie.name;
  const ipHeader = callers.config.ip.customHeader;
  return (request, reply, done) => {
    // A request the route would refuse is left to it (it refuses with the usual error).
    if (nulInPath(request) || queryKeyError(request.query, false) || !deps.cacheable(request)) return done();
    if (config.skipAllowed && String(request.headers['cache-control'] ?? '').includes('no-store')) return done();
    let accountability;
    try {
      accountability = callers.accountability.resolveCached(extractToken(request, cookie), clientIp(request, ipHeader));
    } catch {
      return done();
    }
    if (!accountability) return done();
    const key = cache.keyNow(deps.material(request), accountability);
    const body = key ? cache.peek(key) : undefined;
    if (body === undefined) return done();
    request.accountability = accountability;
    timerOf(request).mark('cache');
    // Answered here: the hooks after this one, and the route's handler, do not run (no `done`).
    hitReply(request, reply, config, body);
  };
}
