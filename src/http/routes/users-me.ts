/** `/users/me/tfa/*` (Directus docs: Authentication). The rest of `/users` is the system collection's (items semantics). */
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import { authRouteBody, TfaDisableBody, TfaEnableBody, TfaGenerateBody } from '../../request/auth-bodies.js';
import type { TfaService } from '../../auth/tfa-service.js';
import { declareRoute, type RouteDeclaration } from '../route-declaration.js';

const tags = ['Users'];
export const TFA_ROUTES = {
  generate: {
    method: 'POST',
    url: '/users/me/tfa/generate',
    summary: 'Start two-factor setup: a secret and its otpauth URL',
    tags,
    audience: 'user',
    body: TfaGenerateBody,
    response: {
      description: 'The secret',
      data: Type.Object({ secret: Type.String(), otpauth_url: Type.String() }),
    },
  },
  enable: {
    method: 'POST',
    url: '/users/me/tfa/enable',
    summary: 'Turn two-factor sign-in on',
    tags,
    audience: 'user',
    body: TfaEnableBody,
    response: null,
  },
  disable: {
    method: 'POST',
    url: '/users/me/tfa/disable',
    summary: 'Turn two-factor sign-in off',
    tags,
    audience: 'user',
    body: TfaDisableBody,
    response: null,
  },
} satisfies Record<string, RouteDeclaration>;

export interface UsersMeRoutesDeps {
  tfa: TfaService;
}

export function usersMeRoutes(context: UsersMeRoutesDeps): FastifyPluginAsync {
  return async (app) => {
    declareRoute(app, TFA_ROUTES.generate, async (request) => ({
      data: await context.tfa.generate(request.accountability.user, authRouteBody(request.body, false)),
    }));
    declareRoute(app, TFA_ROUTES.enable, async (request, reply) => {
      await context.tfa.enable(request.accountability.user, authRouteBody(request.body, false));
      return reply.code(204).send();
    });
    declareRoute(app, TFA_ROUTES.disable, async (request, reply) => {
      await context.tfa.disable(request.accountability.user, authRouteBody(request.body, false));
      return reply.code(204).send();
    });
  };
}
