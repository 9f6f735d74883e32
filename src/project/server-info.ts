/** What /server/health and /server/info answer (REST and GraphQL's `server_health` / `server_info`). */
import type { Accountability } from '../permissions/accountability.js';
import { VERSION } from '../version.js';
import type { Config } from '../config/config.js';
import type { Database } from '../db/connection.js';
import type { SettingsService } from './settings-service.js';

const HEALTH_THRESHOLD_MS = 150;

/** What the health checks and the project's info are read from. */
export interface ServerInfoApi {
  config: Config;
  db: Database;
  settings: SettingsService;
}

/** `/server/health`'s body (also GraphQL's `server_health`): admins see the checks. */
export async function healthReport(
  context: ServerInfoApi,
  accountability: Accountability,
): Promise<{ status: string } & Record<string, unknown>> {
  const started = performance.now();
  let dbOk = true;
  try {
    await context.db.ping();
  } catch {
    dbOk = false;
  }
  const elapsed = Math.round((performance.now() - started) * 100) / 100;
  const dbStatus = !dbOk ? 'error' : elapsed > HEALTH_THRESHOLD_MS ? 'warn' : 'ok';
  const body: { status: string } & Record<string, unknown> = { status: dbStatus };
  if (accountability.admin) {
    body.releaseId = VERSION;
    body.serviceId = 'strata';
    body.checks = {
      [`${context.db.dialect.client}:responseTime`]: [
        {
          status: dbStatus,
          componentType: 'datastore',
          observedUnit: 'ms',
          observedValue: elapsed,
          threshold: HEALTH_THRESHOLD_MS,
        },
      ],
    };
  }
  return body;
}

/** `/server/info`'s data (also GraphQL's `server_info`). */
export async function serverInfo(
  context: ServerInfoApi,
  accountability: Accountability,
): Promise<Record<string, unknown>> {
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
  return data;
}
