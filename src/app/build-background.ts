/**
 * The work done off the request path, started after the services and stopped before them: the audit trail's
 * retention, the cron scheduler (extensions' and flows' schedules, each tick once across instances) and the flows
 * with their outbox delivery.
 */
import type { Invalidation } from '../cache/invalidation.js';
import type { Clock } from '../config/clock.js';
import type { Config } from '../config/config.js';
import type { Database } from '../db/connection.js';
import { ScheduleRunsRepository } from '../db/repositories/schedule-runs.js';
import { Scheduler } from '../engine/events/scheduler.js';
import type { FlowsService } from '../flows/flows-service.js';
import { AuditRetention } from '../project/audit-retention.js';
import type { SchemaStore } from '../schema/schema-store.js';
import type { Mailer } from '../mail/mailer.js';
import { startFlows } from './build-flows.js';
import type { Engine } from './build-engine.js';
import type { StartLog } from './start-log.js';

export interface Background {
  retention: AuditRetention;
  scheduler: Scheduler;
  flows: FlowsService;
  /** Stops the schedules first (no new runs), then retention and the flows' delivery. */
  stop(): Promise<void>;
}

export async function startBackground(parts: {
  config: Config;
  db: Database;
  engine: Engine;
  schema: SchemaStore;
  invalidation: Invalidation;
  clock: Clock;
  log: StartLog;
  mailer?: Mailer;
}): Promise<Background> {
  const { config, db, clock, log } = parts;
  const retention = new AuditRetention(db, config.retention, clock, (error) =>
    log?.error?.({ err: error }, 'Audit trail retention failed'),
  );
  retention.start();
  // Reads go to the primary until the replicas' first probe finds one caught up.
  db.startReplicas();
  const runs = new ScheduleRunsRepository(db);
  const scheduler = new Scheduler(
    (id, tick) => runs.claim(id, tick),
    (error, id) => log?.error?.({ err: error }, `Schedule "${id}" failed`),
  );
  const flows = await startFlows({ ...parts, scheduler });
  return {
    retention,
    scheduler,
    flows,
    async stop() {
      await scheduler.stop();
      await retention.stop();
      await flows.stop();
    },
  };
}
