/**
 * Request durations by route template (Fastify's `routeOptions.url`: `/items/:collection/:id`, never the raw URL,
 * whose ids and query strings would make a series per request), method and status. One onResponse hook, added only
 * when the metrics are on; the duration is Fastify's own `reply.elapsedTime` (from the request's arrival).
 */
import type { FastifyInstance } from 'fastify';
import { Histogram, type Registry } from 'prom-client';

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The label of a request that matched no route: one series for every unknown path. */
export const UNMATCHED_ROUTE = '(unmatched)';

export function httpMetrics(app: FastifyInstance, registry: Registry): void {
  const durations = new Histogram({
    name: 'strata_http_request_duration_seconds',
    help: 'HTTP requests from arrival to the end of the answer, by route template, method and status',
    labelNames: ['route', 'method', 'status'],
    buckets: BUCKETS,
    registers: [registry],
  });
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.is404 ? UNMATCHED_ROUTE : (request.routeOptions.url ?? UNMATCHED_ROUTE);
    durations.observe({ route, method: request.method, status: reply.statusCode }, reply.elapsedTime / 1000);
    done();
  });
}
