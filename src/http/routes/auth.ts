import type { FastifyPluginAsync } from 'fastify';
import { InvalidPayloadError } from '../../errors/catalogue.js';
import type { AppContext } from '../../services/app-context.js';
import { clientIp } from '../client-ip.js';
import { consume } from '../rate-limiter.js';

export function authRoutes(context: AppContext): FastifyPluginAsync {
  return async (app) => {
    app.post<{ Body: unknown }>('/login', { config: { public: true } }, async (request) => {
      const body = request.body;
      if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new InvalidPayloadError('Payload in body is required');
      const { email, password, mode, otp } = body as Record<string, unknown>;
      // Guessing passwords is slowed per account and client IP, on top of the per-IP limit every route has.
      const login = context.rateLimiters.login;
      if (login) await consume(login, `${String(email).toLowerCase()}|${clientIp(request, context.config.ip.customHeader)}`);
      if (mode !== undefined && mode !== 'json') {
        throw new InvalidPayloadError(mode === 'cookie' || mode === 'session' ? `"mode" "${String(mode)}" is not supported yet; use "json"` : '"mode" must be one of [json, cookie, session]');
      }
      const data = await context.auth.login({
        email: email as string,
        password: password as string,
        mode: 'json',
        otp: otp as string | undefined,
      });
      return { data };
    });
  };
}
