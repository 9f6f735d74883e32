/** `/auth/login`, `/auth/refresh`, `/auth/logout` (Directus docs: Authentication): thin over AuthService; cookies set here. */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { authRouteBody } from '../../request/auth-bodies.js';
import type { AppContext } from '../../app/app-context.js';
import { applyCookies, clientInfo } from '../auth-cookies.js';

export function authRoutes(context: AppContext): FastifyPluginAsync {
  const client = (request: FastifyRequest) => clientInfo(request, context.config.ip.customHeader);

  return async (app) => {
    app.post('/login', { config: { public: true } }, async (request, reply) => {
      const body = authRouteBody(request.body, true);
      const result = await context.auth.login(body, client(request));
      applyCookies(reply, result.cookies);
      return { data: result.data };
    });

    app.post('/refresh', { config: { public: true } }, async (request, reply) => {
      const result = await context.auth.refresh(authRouteBody(request.body, false), request.cookies, client(request));
      applyCookies(reply, result.cookies);
      return { data: result.data };
    });

    app.post('/logout', { config: { public: true } }, async (request, reply) => {
      applyCookies(reply, await context.auth.logout(authRouteBody(request.body, false), request.cookies));
      return reply.code(204).send();
    });
  };
}
