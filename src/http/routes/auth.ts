/** `/auth/login`, `/auth/refresh`, `/auth/logout` (Directus docs: Authentication): thin over AuthService; cookies set here. */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { InvalidPayloadError } from '../../errors/catalogue.js';
import type { AppContext } from '../../services/app-context.js';
import { applyCookies, clientInfo } from '../auth-cookies.js';

function bodyOf(request: FastifyRequest, required: boolean): Record<string, unknown> {
  const body = request.body;
  if (body === undefined || body === null) {
    if (required) throw new InvalidPayloadError('Payload in body is required');
    return {};
  }
  if (typeof body !== 'object' || Array.isArray(body)) throw new InvalidPayloadError('Payload has to be an object');
  return body as Record<string, unknown>;
}

export function authRoutes(context: AppContext): FastifyPluginAsync {
  const client = (request: FastifyRequest) => clientInfo(request, context.config.ip.customHeader);

  return async (app) => {
    app.post('/login', { config: { public: true } }, async (request, reply) => {
      const body = bodyOf(request, true);
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
