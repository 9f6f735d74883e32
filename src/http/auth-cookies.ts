/** What auth operations need from the HTTP request and give back to the reply, for REST and GraphQL routes alike. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ClientInfo, CookieChange } from '../auth/auth-service.js';
import { clientIp } from './client-ip.js';
import { clearCookie, setCookie } from './cookies.js';
import { boundedOrigin } from './write-client.js';

/** Sets or clears the refresh and session cookies an auth operation changed. */
export function applyCookies(reply: FastifyReply, changes: CookieChange[]): void {
  for (const { cookie, value, maxAgeMs } of changes) {
    const options = {
      path: '/',
      httpOnly: true,
      secure: cookie.secure,
      sameSite: cookie.sameSite,
      ...(cookie.domain ? { domain: cookie.domain } : {}),
    };
    if (value === null) clearCookie(reply, cookie.name, options);
    else setCookie(reply, cookie.name, value, { ...options, maxAge: Math.floor(maxAgeMs / 1000) });
  }
}

export function clientInfo(request: FastifyRequest, ipHeader: string | null): ClientInfo {
  return {
    ip: clientIp(request, ipHeader),
    userAgent: request.headers['user-agent'] ?? null,
    origin: boundedOrigin(request.headers.origin),
  };
}
