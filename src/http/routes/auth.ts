/** `/auth/login`, `/auth/refresh`, `/auth/logout` (reference §3.2): thin over AuthService; cookies set here. */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { InvalidPayloadError } from '../../errors/catalogue.js';
import type { AppContext } from '../../services/app-context.js';
import type { ClientInfo, CookieChange } from '../../services/auth-service.js';
import { clientIp } from '../client-ip.js';
import { consume } from '../rate-limiter.js';

function bodyOf(request: FastifyRequest, required: boolean): Record<string, unknown> {
  const body = request.body;
  if (body === undefined || body === null) {
    if (required) throw new InvalidPayloadError('Payload in body is required');
    return {};
  }
  if (typeof body !== 'object' || Array.isArray(body)) throw new InvalidPayloadError('Payload has to be an object');
  return body as Record<string, unknown>;
}

function applyCookies(reply: FastifyReply, changes: CookieChange[]): void {
  for (const { cookie, value, maxAgeMs } of changes) {
    const options = { path: '/', httpOnly: true, secure: cookie.secure, sameSite: cookie.sameSite, ...(cookie.domain ? { domain: cookie.domain } : {}) };
    if (value === null) void reply.clearCookie(cookie.name, options);
    else void reply.setCookie(cookie.name, value, { ...options, maxAge: Math.floor(maxAgeMs / 1000) });
  }
}

export function authRoutes(context: AppContext): FastifyPluginAsync {
  const client = (request: FastifyRequest): ClientInfo => ({
    ip: clientIp(request, context.config.ip.customHeader),
    userAgent: request.headers['user-agent'] ?? null,
    origin: request.headers.origin ?? null,
  });

  return async (app) => {
    app.post('/login', { config: { public: true } }, async (request, reply) => {
      const body = bodyOf(request, true);
      // Guessing passwords is slowed per account and client IP, on top of the per-IP limit every route has.
      const login = context.rateLimiters.login;
      if (login) await consume(login, `${String(body.email).toLowerCase()}|${client(request).ip}`);
      const result = await context.auth.login(body, client(request));
      applyCookies(reply, result.cookies);
      return { data: result.data };
    });

    app.post('/refresh', { config: { public: true } }, async (request, reply) => {
      const result = await context.auth.refresh(bodyOf(request, false), request.cookies, client(request));
      applyCookies(reply, result.cookies);
      return { data: result.data };
    });

    app.post('/logout', { config: { public: true } }, async (request, reply) => {
      applyCookies(reply, await context.auth.logout(bodyOf(request, false), request.cookies));
      return reply.code(204).send();
    });
  };
}
