/** What /server/health and /server/info answer (REST and GraphQL's `server_health` / `server_info`). */
import type { Accountability } from '../permissions/accountability.js';
import { VERSION } from '../version.js';
import type { Config } from '../config/config.js';
import type { Database } from '../db/connection.js';
import type { SettingsService } from './settings-service.js';
import type { StorageLocations } from '../storage/storage-locations.js';

const HEALTH_THRESHOLD_MS = 150;

/** What the health checks and the project's info are read from. */
export interface ServerInfoApi {
  config: Config;
  db: Database;
  settings: SettingsService;
  storage: StorageLocations;
}

type Check = { status: string; componentType: string; observedUnit: string; observedValue: number; threshold: number };

const worst = (statuses: string[]) =>
  statuses.includes('error') ? 'error' : statuses.includes('warn') ? 'warn' : 'ok';

/** One timed check: error when it throws, warn past the threshold. */
async function timed(componentType: string, run: () => Promise<void>, threshold: number): Promise<Check> {
  const started = performance.now();
  let ok = true;
  try {
    await run();
  } catch {
    ok = false;
  }
  const observedValue = Math.round((performance.now() - started) * 100) / 100;
  const status = !ok ? 'error' : observedValue > threshold ? 'warn' : 'ok';
  return { status, componentType, observedUnit: 'ms', observedValue, threshold };
}

/** `/server/health`'s body (also GraphQL's `server_health`): admins see the checks. */
export async function healthReport(
  context: ServerInfoApi,
  accountability: Accountability,
): Promise<{ status: string } & Record<string, unknown>> {
  const storageThreshold = HEALTH_THRESHOLD_MS * 5;
  // Storage is probed (an object written, read and deleted) for admins only: a public probe would let anyone write.
  const locations = accountability.admin ? context.storage.names() : [];
  const [db, ...storage] = await Promise.all([
    timed('datastore', () => context.db.ping(), HEALTH_THRESHOLD_MS),
    ...locations.map((name) => timed('objectstore', () => context.storage.probe(name), storageThreshold)),
  ]);
  const body: { status: string } & Record<string, unknown> = {
    status: worst([db!.status, ...storage.map((check) => check.status)]),
  };
  if (accountability.admin) {
    body.releaseId = VERSION;
    body.serviceId = 'strata';
    const checks: Record<string, Check[]> = { [`${context.db.dialect.client}:responseTime`]: [db!] };
    locations.forEach((name, i) => (checks[`storage:${name}:responseTime`] = [storage[i]!]));
    body.checks = checks;
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
