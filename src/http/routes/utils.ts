/**
 * /utils: `POST /utils/cache/clear` (admins) drops every cache Strata keeps — the schema overview (and the GraphQL
 * schemas built on it), permissions, users and settings — on this instance and, through the bus, on every other.
 * Directus's `?system` flag is accepted: Strata's caches are all system caches, so both forms clear everything.
 */
import type { FastifyPluginAsync } from 'fastify';
import { ForbiddenError } from '../../errors/catalogue.js';

import { declareRoute, type RouteDeclaration } from '../route-declaration.js';

export const UTILS_ROUTES = {
  clearCache: {
    method: 'POST',
    url: '/utils/cache/clear',
    summary: 'Drop every cache (schema, permissions, users, settings) on every instance',
    tags: ['Utilities'],
    audience: 'admin',
    response: { description: 'Cleared (no body)' },
  },
} satisfies Record<string, RouteDeclaration>;

export interface UtilsRoutesDeps {
  /** Every cache, here and on every instance (POST /utils/cache/clear). */
  clearCaches(): Promise<void>;
}

export function utilsRoutes(context: UtilsRoutesDeps): FastifyPluginAsync {
  return async (app) => {
    declareRoute(app, UTILS_ROUTES.clearCache, async (request, reply) => {
      if (!request.accountability.admin) throw new ForbiddenError();
      await context.clearCaches();
      return reply.code(200).send();
    });
  };
}
