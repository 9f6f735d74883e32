/**
 * /server: ping (no auth), health (application/health+json, 503 when the database does not answer) and info.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../../services/app-context.js';
import { VERSION } from '../../version.js';
import { ServiceError } from '../../errors/catalogue.js';
import { publicAccountability } from '../../permissions/accountability.js';
import { extractToken } from '../extract-token.js';

const HEALTH_THRESHOLD_MS = 150;

export function serverRoutes(context: AppContext): FastifyPluginAsync {
  return async (app) => {
    app.get('/ping', { config: { public: true } }, async (_request, reply) => reply.type('text/plain; charset=utf-8').send('pong'));

    // Health must answer while the database is down, so it resolves the caller itself and treats a caller it
    // cannot look up as public.
    app.get('/health', { config: { public: true } }, async (request, reply) => {
      const accountability = await context.accountability.resolve(extractToken(request, context.config.auth.sessionCookie.name), request.ip).catch((error: unknown) => {
        if (error instanceof ServiceError) throw error;
        return publicAccountability(request.ip);
      });
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
      if (accountability.admin) {
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
      const data: Record<string, unknown> = { project: await context.settings.projectInfo() };
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
