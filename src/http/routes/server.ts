/**
 * /server: ping (no auth), health (application/health+json, 503 when the database does not answer) and info.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../../services/app-context.js';
import { VERSION } from '../../version.js';

const HEALTH_THRESHOLD_MS = 150;

export function serverRoutes(context: AppContext): FastifyPluginAsync {
  return async (app) => {
    app.get('/ping', { config: { public: true } }, async (_request, reply) => reply.type('text/plain; charset=utf-8').send('pong'));

    app.get('/health', async (request, reply) => {
      const started = performance.now();
      let dbOk = true;
      try {
        await context.db.ping();
      } catch {
        dbOk = false;
      }
      const elapsed = Math.round((performance.now() - started) * 100) / 100;
      const dbStatus = !dbOk ? 'error' : elapsed > HEALTH_THRESHOLD_MS ? 'warn' : 'ok';
      const status = dbStatus;
      const body: Record<string, unknown> = { status };
      if (request.accountability.admin) {
        body.releaseId = VERSION;
        body.serviceId = 'strata';
        body.checks = {
          [`${context.db.dialect.client}:responseTime`]: [
            { status: dbStatus, componentType: 'datastore', observedUnit: 'ms', observedValue: elapsed, threshold: HEALTH_THRESHOLD_MS },
          ],
        };
      }
      reply.header('cache-control', 'no-store');
      return reply.code(status === 'error' ? 503 : 200).type('application/health+json; charset=utf-8').send(JSON.stringify(body));
    });

    app.get('/info', async (request) => {
      const accountability = request.accountability;
      const data: Record<string, unknown> = {
        project: {
          project_name: 'Strata',
          project_descriptor: null,
          project_logo: null,
          project_color: '#6644FF',
          default_language: 'en-US',
          public_foreground: null,
          public_background: null,
          public_note: null,
          custom_css: null,
        },
      };
      if (accountability.user) {
        data.rateLimit = false;
        data.rateLimitGlobal = false;
        data.queryLimit = { default: context.config.queryLimitDefault, max: context.config.queryLimitMax };
      }
      if (accountability.admin) {
        data.strata = { version: VERSION, database: context.db.dialect.label };
        data.node = { version: process.version, uptime: Math.round(process.uptime()) };
      }
      return { data };
    });
  };
}
