/** `/users/me/tfa/*` (Directus docs: Authentication). The rest of `/users` is the system collection's (items semantics). */
import type { FastifyPluginAsync } from 'fastify';
import { authRouteBody } from '../../request/auth-bodies.js';
import type { AppContext } from '../../app/app-context.js';

export function usersMeRoutes(context: AppContext): FastifyPluginAsync {
  return async (app) => {
    app.post('/me/tfa/generate', async (request) => ({
      data: await context.tfa.generate(request.accountability.user, authRouteBody(request.body, false)),
    }));
    app.post('/me/tfa/enable', async (request, reply) => {
      await context.tfa.enable(request.accountability.user, authRouteBody(request.body, false));
      return reply.code(204).send();
    });
    app.post('/me/tfa/disable', async (request, reply) => {
      await context.tfa.disable(request.accountability.user, authRouteBody(request.body, false));
      return reply.code(204).send();
    });
  };
}
