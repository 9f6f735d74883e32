/**
 * /server: ping (no auth), health (application/health+json, 503 when the database does not answer) and info.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import type { CallerApi } from '../../app/ports.js';
import { healthReport, serverInfo, type ServerInfoApi } from '../../project/server-info.js';
import { ServiceError, ServiceUnavailableError } from '../../errors/catalogue.js';
import { publicAccountability } from '../../permissions/accountability.js';
import { extractToken } from '../extract-token.js';
import { declareRoute, type RouteDeclaration } from '../route-declaration.js';
import { ANY_DATA } from './route-answers.js';

const tags = ['Server'];
export const SERVER_ROUTES = {
  ping: {
    method: 'GET',
    url: '/server/ping',
    summary: 'Answers pong',
    tags,
    audience: 'anyone',
    public: true,
    response: { description: 'pong', media: 'text/plain', schema: Type.String() },
  },
  health: {
    method: 'GET',
    url: '/server/health',
    summary: 'Health of the service and its database',
    tags,
    audience: 'anyone',
    public: true,
    readsToken: true,
    response: {
      description: 'ok or warn (503 when error)',
      media: 'application/health+json',
      schema: Type.Object({ status: Type.Unsafe<string>({ type: 'string', enum: ['ok', 'warn', 'error'] }) }),
    },
  },
  info: {
    method: 'GET',
    url: '/server/info',
    summary: 'Project information (query limits for signed-in users)',
    tags,
    audience: 'anyone',
    response: ANY_DATA,
  },
} satisfies Record<string, RouteDeclaration>;

export interface ServerRoutesDeps extends ServerInfoApi, CallerApi {}

export function serverRoutes(context: ServerRoutesDeps): FastifyPluginAsync {
  return async (app) => {
    // As Directus answers it (clients that check the content type expect HTML's), never cached.
    declareRoute(app, SERVER_ROUTES.ping, async (_request, reply) =>
      reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send('pong'),
    );

    // Health must answer while the database is down, so it resolves the caller itself and treats a caller it
    // cannot look up as public.
    declareRoute(app, SERVER_ROUTES.health, async (request, reply) => {
      const accountability = await context.accountability
        .resolve(extractToken(request, context.config.auth.sessionCookie.name), request.ip)
        .catch((error: unknown) => {
          // A database that does not answer is what health reports, not a reason to refuse the caller.
          if (error instanceof ServiceError && !(error instanceof ServiceUnavailableError)) throw error;
          return publicAccountability(request.ip);
        });
      const body = await healthReport(context, accountability);
      const status = body.status;
      reply.header('cache-control', 'no-store');
      return reply
        .code(status === 'error' ? 503 : 200)
        .type('application/health+json; charset=utf-8')
        .send(JSON.stringify(body));
    });

    declareRoute(app, SERVER_ROUTES.info, async (request) => ({
      data: await serverInfo(context, request.accountability),
    }));
  };
}
