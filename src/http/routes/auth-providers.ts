/**
 * Single sign-on routes (Directus docs: SSO): `GET /auth` lists the providers; `GET /auth/login/:provider` sends the
 * browser to the provider; its `/callback` signs in and returns to the allowed URL. Thin over SignOnService; the flow
 * cookie and the session cookies are set here.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthService } from '../../auth/auth-service.js';
import { FLOW_TTL_MS } from '../../auth/providers/login-flow.js';
import { SignOnError, type SignOnService } from '../../auth/providers/sign-on-service.js';
import type { Config } from '../../config/config.js';
import { checkBody, compileSchema, OneOf } from '../../request/body-check.js';
import { applyCookies, clientInfo } from '../auth-cookies.js';
import { clearCookie, setCookie } from '../cookies.js';
import { declareRoute, type RouteDeclaration } from '../route-declaration.js';

const StartQuery = compileSchema(
  Type.Object({
    redirect: Type.Optional(
      Type.String({
        errorMessage: '"redirect" must be one URL',
        description: 'Where to return after signing in: a path here, or a URL on the allow-list.',
      }),
    ),
    mode: Type.Optional(
      OneOf(['json', 'cookie', 'session'] as const, {
        errorMessage: '"mode" must be one of [json, cookie, session]',
        description: 'cookie (default with a redirect) or session; json answers the tokens (only without a redirect).',
      }),
    ),
  }),
);

const tags = ['Authentication'];
export const AUTH_PROVIDER_ROUTES = {
  providers: {
    method: 'GET',
    url: '/auth',
    summary: 'The single sign-on providers, and whether email and password sign-in is off',
    tags,
    audience: 'anyone',
    public: true,
    response: { description: 'The providers', data: Type.Array(Type.Object({ name: Type.String() })) },
  },
  start: {
    method: 'GET',
    url: '/auth/login/:provider',
    summary: 'Sign in through a provider: redirects to it',
    tags,
    audience: 'anyone',
    public: true,
    querystring: StartQuery,
    response: { description: 'A redirect to the provider (302)' },
  },
  callback: {
    method: 'GET',
    url: '/auth/login/:provider/callback',
    summary: 'Where the provider returns: signs in, then redirects to the allowed URL (or answers the tokens)',
    tags,
    audience: 'anyone',
    public: true,
    response: { description: 'A redirect (302), or the tokens without one', data: Type.Object({}) },
  },
} satisfies Record<string, RouteDeclaration>;

export interface AuthProviderRoutesDeps {
  config: Config;
  auth: AuthService;
  signOn: SignOnService;
}

const FLOW_COOKIE = 'service_sso_flow';
type ProviderRequest = FastifyRequest<{ Params: { provider: string }; Querystring: Record<string, unknown> }>;

export function authProviderRoutes(context: AuthProviderRoutesDeps): FastifyPluginAsync {
  const flowCookie = (provider: string) => ({
    path: `/auth/login/${encodeURIComponent(provider)}`,
    httpOnly: true,
    secure: context.config.auth.refreshCookie.secure,
    // Lax: the provider's redirect back is a top-level GET from another site, which must carry it.
    sameSite: 'lax' as const,
  });

  return async (app) => {
    declareRoute(app, AUTH_PROVIDER_ROUTES.providers, async () => context.signOn.providers());

    declareRoute(app, AUTH_PROVIDER_ROUTES.start, async (request: ProviderRequest, reply) => {
      const { provider } = request.params;
      const query = checkBody(StartQuery, request.query);
      const origin = `${request.protocol}://${request.host}`;
      const { location, flowToken } = await context.signOn.start(provider, query, origin);
      setCookie(reply, FLOW_COOKIE, flowToken, { ...flowCookie(provider), maxAge: Math.floor(FLOW_TTL_MS / 1000) });
      return reply.redirect(location, 302);
    });

    declareRoute(app, AUTH_PROVIDER_ROUTES.callback, async (request: ProviderRequest, reply) => {
      const { provider } = request.params;
      clearCookie(reply, FLOW_COOKIE, flowCookie(provider));
      const origin = `${request.protocol}://${request.host}`;
      const query = new URL(request.url, 'http://callback.invalid').search;
      try {
        const client = clientInfo(request, context.config.ip.customHeader);
        const end = await context.signOn.callback(provider, query, origin, request.cookies[FLOW_COOKIE], client);
        applyCookies(reply, end.result.cookies);
        if (end.redirect === null) return { data: end.result.data };
        return reply.redirect(end.redirect, 302);
      } catch (error) {
        return failed(reply, error);
      }
    });
  };
}

/** As Directus: a failed sign-in that knows where it was going returns there with `?reason=<code>`. */
function failed(reply: FastifyReply, error: unknown): FastifyReply {
  if (!(error instanceof SignOnError)) throw error;
  if (error.redirect === null) throw error.error;
  const target = new URL(error.redirect, 'http://relative.invalid');
  target.search = '';
  target.hash = '';
  target.searchParams.set('reason', error.error.code);
  const location = error.redirect.startsWith('/') ? `${target.pathname}${target.search}` : target.href;
  return reply.redirect(location, 302);
}
