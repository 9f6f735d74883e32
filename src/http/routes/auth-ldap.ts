/**
 * `POST /auth/login/{provider}` for the `ldap` providers of AUTH_PROVIDERS (Directus docs: Authentication, LDAP):
 * `{identifier, password, mode?, otp?}`, answered as `/auth/login` is. A name that is no ldap provider is no route.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import { ldapAuthenticate } from '../../auth/ldap/ldap-authenticate.js';
import type { AuthService } from '../../auth/auth-service.js';
import type { Config } from '../../config/config.js';
import type { Database } from '../../db/connection.js';
import type { ChangeEvents } from '../../engine/write/change-events.js';
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
  db: Database;
  changes: ChangeEvents;
}

export function ldapLoginRoutes(context: LdapLoginDeps): FastifyPluginAsync {
  return async (app) => {
    if (context.config.ldapProviders.size === 0) return;
    declareRoute<{ Params: { provider: string } }>(app, LDAP_LOGIN_ROUTE, async (request, reply) => {
      const provider = context.config.ldapProviders.get(request.params.provider.toLowerCase());
      if (!provider) throw new RouteNotFoundError(request.url.split('?')[0]!);
      const body = checkProviderLogin(authRouteBody(request.body, true));
      const log = { warn: (message: string) => request.log.warn(message) };
      const result = await context.auth.loginWith(
        `${provider.name}:${body.identifier}`,
        body.mode ?? 'json',
        body.otp,
        clientInfo(request, context.config.ip.customHeader),
        () => ldapAuthenticate({ db: context.db, changes: context.changes, log }, provider, body),
      );
      applyCookies(reply, result.cookies);
      return { data: result.data };
    });
  };
}
