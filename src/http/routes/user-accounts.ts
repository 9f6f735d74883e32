/**
 * `/users/invite`, `/users/invite/accept`, `/users/register`, `/users/register/verify-email` (Directus docs: Users):
 * thin over the invitation and registration services.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { InviteService } from '../../auth/invite-service.js';
import type { RegistrationService } from '../../auth/registration-service.js';
import type { Config } from '../../config/config.js';
import { AcceptInviteBody, InviteBody, RegisterBody, VerifyEmailQuery } from '../../request/account-bodies.js';
import { authRouteBody } from '../../request/auth-bodies.js';
import { checkBody } from '../../request/body-check.js';
import { clientInfo } from '../auth-cookies.js';
import { declareRoute, type RouteDeclaration } from '../route-declaration.js';

const tags = ['Users'];
export const USER_ACCOUNT_ROUTES = {
  invite: {
    method: 'POST',
    url: '/users/invite',
    summary: 'Invite users by email (who may create users may invite)',
    tags,
    audience: 'user',
    body: InviteBody,
    response: null,
  },
  acceptInvite: {
    method: 'POST',
    url: '/users/invite/accept',
    summary: 'Accept an invitation: set the password with the token of the invitation link',
    tags,
    audience: 'anyone',
    public: true,
    body: AcceptInviteBody,
    response: null,
  },
  register: {
    method: 'POST',
    url: '/users/register',
    summary: 'Sign up, when the project allows public registration (204 whether or not the address is taken)',
    tags,
    audience: 'anyone',
    public: true,
    body: RegisterBody,
    response: null,
  },
  verifyEmail: {
    method: 'GET',
    url: '/users/register/verify-email',
    summary: 'Follow the link of a registration mail: activates the user and redirects to Studio',
    tags,
    audience: 'anyone',
    public: true,
    querystring: VerifyEmailQuery,
    response: { description: 'A redirect to Studio' },
  },
} satisfies Record<string, RouteDeclaration>;

export interface UserAccountRoutesDeps {
  config: Config;
  invites: InviteService;
  registration: RegistrationService;
}

export function userAccountRoutes(context: UserAccountRoutesDeps): FastifyPluginAsync {
  const client = (request: FastifyRequest) => clientInfo(request, context.config.ip.customHeader);
  const studio = context.config.docs.publicUrl === '/' ? '/admin' : `${context.config.docs.publicUrl}/admin`;

  return async (app) => {
    declareRoute(app, USER_ACCOUNT_ROUTES.invite, async (request, reply) => {
      await context.invites.invite(authRouteBody(request.body, true), request.accountability);
      return reply.code(204).send();
    });
    declareRoute(app, USER_ACCOUNT_ROUTES.acceptInvite, async (request, reply) => {
      await context.invites.accept(authRouteBody(request.body, true), client(request).ip);
      return reply.code(204).send();
    });
    declareRoute(app, USER_ACCOUNT_ROUTES.register, async (request, reply) => {
      await context.registration.register(authRouteBody(request.body, true), client(request));
      return reply.code(204).send();
    });
    declareRoute(app, USER_ACCOUNT_ROUTES.verifyEmail, async (request, reply) => {
      const { token } = checkBody(VerifyEmailQuery, request.query ?? {}) as { token?: string };
      await context.registration.verify(token, client(request).ip);
      // Always Studio on this server (PUBLIC_URL), never a caller's address.
      return reply.redirect(studio);
    });
  };
}
