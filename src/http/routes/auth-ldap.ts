/**
 * `POST /auth/login/{provider}` for the providers that take an identifier and password (the `ldap` driver; Directus
 * docs: Authentication, LDAP): `{identifier, password, mode?, otp?}`, answered as `/auth/login` is. A name that is no
 * such provider is no route.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import type { AuthService } from '../../auth/auth-service.js';
import type { SignOnService } from '../../auth/providers/sign-on-service.js';
import type { Config } from '../../config/config.js';
import { RouteNotFoundError } from '../../errors/catalogue.js';
import { authRouteBody, checkProviderLogin, ProviderLoginBody } from '../../request/auth-bodies.js';
import { applyCookies, clientInfo } from '../auth-cookies.js';
import { declareRoute, type RouteDeclaration } from '../route-declaration.js';

export const LDAP_LOGIN_ROUTE = {
  method: 'POST',
  url: '/auth/login/:provider',
  summary: 'Sign in through a directory (an ldap provider): tokens (json mode) or cookies',
  tags: ['Authentication'],
  audience: 'anyone',
  public: true,
  body: ProviderLoginBody,
  response: {
    description: 'The tokens (json mode)',
    data: Type.Object({
      access_token: Type.Optional(Type.String()),
      expires: Type.Integer({ description: 'Milliseconds until the token expires.' }),
      refresh_token: Type.Optional(Type.String({ description: 'In json mode.' })),
    }),
  },
} satisfies RouteDeclaration;

export interface LdapLoginDeps {
  config: Config;
  auth: AuthService;
  signOn: SignOnService;
}

export function ldapLoginRoutes(context: LdapLoginDeps): FastifyPluginAsync {
  return async (app) => {
    if (!context.signOn.hasCredentials()) return;
    declareRoute<{ Params: { provider: string } }>(app, LDAP_LOGIN_ROUTE, async (request, reply) => {
      const driver = context.signOn.credentials(request.params.provider);
      if (!driver) throw new RouteNotFoundError(request.url.split('?')[0]!);
      const body = checkProviderLogin(authRouteBody(request.body, true));
      const result = await context.auth.loginWith(
        { provider: driver.provider, identifier: body.identifier },
        body.mode ?? 'json',
        body.otp,
        clientInfo(request, context.config.ip.customHeader),
        () => driver.authenticate(body),
      );
      applyCookies(reply, result.cookies);
      return { data: result.data };
    });
  };
}
