/**
 * GET /metrics (METRICS_ENABLED): this instance's figures in Prometheus's text format, for a scraper holding one of
 * METRICS_TOKENS or an admin; anyone else gets 403 FORBIDDEN, as Directus answers (docs/metrics.md).
 */
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { CallerApi } from '../../app/ports.js';
import { ForbiddenError, ServiceError } from '../../errors/catalogue.js';
import type { PrometheusMetrics } from '../../metrics/prometheus-metrics.js';
import { scrapeCredential } from '../../metrics/scrape-access.js';
import { clientIp } from '../client-ip.js';
import { declareRoute, type RouteDeclaration } from '../route-declaration.js';

export const METRICS_ROUTE = {
  method: 'GET',
  url: '/metrics',
  summary: "This instance's metrics in Prometheus's text format (a METRICS_TOKENS token or an admin)",
  tags: ['Server'],
  audience: 'admin',
  public: true,
  readsToken: true,
  response: { description: 'Prometheus text exposition format', media: 'text/plain', schema: Type.String() },
} satisfies RouteDeclaration;

async function allowed(request: FastifyRequest, metrics: PrometheusMetrics, callers: CallerApi): Promise<boolean> {
  const credential = scrapeCredential(request.headers.authorization);
  if (!credential) return false;
  if (metrics.tokens.matches(credential.token)) return true;
  if (credential.scheme !== 'bearer') return false;
  // Not a scrape token: an admin's own token reads them too (Directus lets admins in).
  const accountability = await callers.accountability
    .resolve(credential.token, clientIp(request, callers.config.ip.customHeader))
    .catch((error: unknown) => {
      if (error instanceof ServiceError) return null;
      throw error;
    });
  return accountability?.admin === true;
}

export function metricsRoutes(metrics: PrometheusMetrics, callers: CallerApi): FastifyPluginAsync {
  return async (app) => {
    declareRoute(app, METRICS_ROUTE, async (request, reply) => {
      if (!(await allowed(request, metrics, callers))) throw new ForbiddenError();
      const text = await metrics.text();
      return reply.type(metrics.contentType).header('cache-control', 'no-store').send(text);
    });
  };
}
