/** `/users/me/tfa/*` (Directus docs: Authentication). The rest of `/users` is the system collection's (items semantics). */
import type { FastifyPluginAsync } from 'fastify';
import { InvalidPayloadError } from '../../errors/catalogue.js';
import type { AppContext } from '../../services/app-context.js';

function body(value: unknown): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new InvalidPayloadError('Payload has to be an object');
  return value as Record<string, unknown>;
}

export function usersMeRoutes(context: AppContext): FastifyPluginAsync {
  return async (app) => {
    app.post('/me/tfa/generate', async (request) => ({ data: await context.tfa.generate(request.accountability.user, body(request.body)) }));
    app.post('/me/tfa/enable', async (request, reply) => {
      await context.tfa.enable(request.accountability.user, body(request.body));
      return reply.code(204).send();
    });
    app.post('/me/tfa/disable', async (request, reply) => {
      await context.tfa.disable(request.accountability.user, body(request.body));
      return reply.code(204).send();
    });
  };
}
