/** `/auth/login`, `/auth/refresh`, `/auth/logout`, `/auth/password/*` (Directus docs: Authentication): thin over AuthService; cookies set here. */
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { authRouteBody, LoginBody, RefreshBody } from '../../request/auth-bodies.js';
import type { AuthService } from '../../auth/auth-service.js';
import type { PasswordResetService } from '../../auth/password-reset-service.js';
import { PasswordRequestBody, PasswordResetBody } from '../../request/account-bodies.js';
import type { Config } from '../../config/config.js';
import { applyCookies, clientInfo } from '../auth-cookies.js';
import { declareRoute, type RouteDeclaration } from '../route-declaration.js';

const Tokens = Type.Object({
  access_token: Type.String(),
  expires: Type.Integer({ description: 'Milliseconds until the access token expires.' }),
  refresh_token: Type.Optional(Type.String({ description: 'In json mode.' })),
});

const tags = ['Authentication'];
export const AUTH_ROUTES = {
  login: {
    method: 'POST',
    url: '/auth/login',
    summary: 'Sign in: tokens (json mode) or cookies',
    tags,
    audience: 'anyone',
    public: true,
    body: LoginBody,
    response: { description: 'The tokens (json mode)', data: Tokens },
  },
  refresh: {
    method: 'POST',
    url: '/auth/refresh',
    summary: 'New tokens for a refresh token (body or cookie)',
    tags,
    audience: 'anyone',
    public: true,
    body: RefreshBody,
    bodyRequired: false,
    response: { description: 'The tokens', data: Tokens },
  },
  logout: {
    method: 'POST',
    url: '/auth/logout',
    summary: 'End the session of a refresh token (body or cookie)',
    tags,
    audience: 'anyone',
    public: true,
    body: RefreshBody,
    bodyRequired: false,
    response: null,
  },
  passwordRequest: {
    method: 'POST',
    url: '/auth/password/request',
    summary: 'Mail a password reset link (204 whether or not the address has an account)',
    tags,
    audience: 'anyone',
    public: true,
    body: PasswordRequestBody,
    response: null,
  },
  passwordReset: {
    method: 'POST',
    url: '/auth/password/reset',
    summary: 'Set a new password with the token of a reset link; ends every session of the user',
    tags,
    audience: 'anyone',
    public: true,
    body: PasswordResetBody,
    response: null,
  },
} satisfies Record<string, RouteDeclaration>;

export interface AuthRoutesDeps {
  config: Config;
  auth: AuthService;
  passwordReset: PasswordResetService;
}

export function authRoutes(context: AuthRoutesDeps): FastifyPluginAsync {
  const client = (request: FastifyRequest) => clientInfo(request, context.config.ip.customHeader);

  return async (app) => {
    declareRoute(app, AUTH_ROUTES.login, async (request, reply) => {
      const body = authRouteBody(request.body, true);
      const result = await context.auth.login(body, client(request));
      applyCookies(reply, result.cookies);
      return { data: result.data };
    });

    declareRoute(app, AUTH_ROUTES.refresh, async (request, reply) => {
      const result = await context.auth.refresh(authRouteBody(request.body, false), request.cookies, client(request));
      applyCookies(reply, result.cookies);
      return { data: result.data };
    });

    declareRoute(app, AUTH_ROUTES.logout, async (request, reply) => {
      applyCookies(reply, await context.auth.logout(authRouteBody(request.body, false), request.cookies));
      return reply.code(204).send();
    });

    declareRoute(app, AUTH_ROUTES.passwordRequest, async (request, reply) => {
      await context.passwordReset.request(authRouteBody(request.body, true), client(request));
      return reply.code(204).send();
    });

    declareRoute(app, AUTH_ROUTES.passwordReset, async (request, reply) => {
      await context.passwordReset.reset(authRouteBody(request.body, true), client(request).ip);
      return reply.code(204).send();
    });
  };
}
