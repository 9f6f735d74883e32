/**
 * Cookies without per-request hooks. `request.cookies` parses the Cookie header when it is first read (only the routes
 * and the token lookup that need it read it), and a cookie to set is written to the reply's Set-Cookie header at
 * once, in the exact form @fastify/cookie wrote (the `cookie` package's serialisation, SameSite=Lax unless given; a
 * cleared cookie expires at the epoch with Max-Age=0). Several cookies on one reply give several Set-Cookie lines.
 */
import { parseCookie, stringifySetCookie, type SetCookie } from 'cookie';
import type { FastifyInstance, FastifyReply } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's cookies by name (parsed on first read). */
    cookies: Record<string, string | undefined>;
  }
}

type Parsed = { parsedCookies: Record<string, string | undefined> | null };

export function registerCookies(app: FastifyInstance): void {
  app.decorateRequest('parsedCookies', null);
  app.decorateRequest('cookies', {
    getter() {
      const kept = this as unknown as Parsed;
      if (kept.parsedCookies === null) {
        const header = this.raw.headers.cookie;
        kept.parsedCookies = header ? parseCookie(header) : {};
      }
      return kept.parsedCookies;
    },
  });
}

export type CookieOptions = Omit<SetCookie, 'name' | 'value'>;

export function setCookie(reply: FastifyReply, name: string, value: string, options: CookieOptions): void {
  void reply.header('set-cookie', stringifySetCookie({ sameSite: 'lax', ...options, name, value }));
}

export function clearCookie(reply: FastifyReply, name: string, options: CookieOptions): void {
  setCookie(reply, name, '', { path: '/', ...options, expires: new Date(0), maxAge: 0 });
}
