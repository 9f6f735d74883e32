/**
 * Every request carries an accountability through the whole pipeline; a bad token fails here, before any route.
 * A callback hook: a caller found in the resolver's caches (most requests) costs no promise and no microtask turn.
 * It is attached to each route that needs it when the route is added (and to the not-found handler, so an unknown
 * path with a bad token is refused as before): asking Fastify per request whether the route is public would build
 * its `routeOptions` object on every request.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { CallerApi } from '../app/ports.js';
import type { Accountability } from '../permissions/accountability.js';
import { queryKeyError } from '../request/prototype-keys.js';
import { clientIp } from './client-ip.js';
import { extractToken } from './extract-token.js';
import { hasPathParams, nulInPath } from './path-params.js';
import { timerOf } from './request-hooks.js';

export type PreHandler = (request: FastifyRequest, reply: unknown, done: (error?: Error) => void) => void;

/** Attaches the caller's resolution to every route that is not public; returns it for the not-found handler. */
export function registerAuthentication(app: FastifyInstance, callers: CallerApi): PreHandler {
  const ipHeader = callers.config.ip.customHeader;
  const asCaller = callers.asCaller;
  // With read replicas, the request goes on as its caller: their reads after their own writes go to the primary.
  const proceed = asCaller
    ? (accountability: Accountability, ip: string, done: () => void) =>
        asCaller(accountability.user ?? `public ${ip}`, done)
    : (_accountability: Accountability, _ip: string, done: () => void) => done();
  const authenticate: PreHandler = (request, _reply, done) => {
    const timer = timerOf(request);
    const refused = queryKeyError(request.query, false);
    if (refused) return done(refused);
    let token: string | null;
    let ip: string;
    let quick: Accountability | undefined;
    try {
      token = extractToken(request, callers.config.auth.sessionCookie.name);
      ip = clientIp(request, ipHeader);
      quick = callers.accountability.resolveCached(token, ip);
    } catch (error) {
      return done(error as Error);
    }
    if (quick) {
      request.accountability = quick;
      timer.mark('auth');
      return proceed(quick, ip, done);
    }
    callers.accountability.resolve(token, ip).then((accountability) => {
      request.accountability = accountability;
      timer.mark('auth');
      proceed(accountability, ip, done);
    }, done);
  };
  // A public route still gets its stage timer where the authentication would have made it.
  const startTimer: PreHandler = (request, _reply, done) => {
    timerOf(request);
    done(queryKeyError(request.query, false) ?? undefined);
  };
  // GET and HEAD routes read no body: their NUL check runs here, in the one hook they already have.
  const checkingPath =
    (first: PreHandler): PreHandler =>
    (request, reply, done) => {
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
  return authenticate;
}
