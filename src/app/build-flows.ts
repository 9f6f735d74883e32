/** Start-up of the flows: their service over the engine, told of every change of the flows, then started. */
import type { Invalidation } from '../cache/invalidation.js';
import type { Config } from '../config/config.js';
import type { Database } from '../db/connection.js';
import type { Scheduler } from '../engine/events/scheduler.js';
import { FlowsService } from '../flows/flows-service.js';
import type { Mailer } from '../mail/mailer.js';
import type { SchemaStore } from '../schema/schema-store.js';
import type { Engine } from './build-engine.js';
import type { StartLog } from './start-log.js';

export interface FlowParts {
  config: Config;
  db: Database;
  engine: Engine;
  schema: SchemaStore;
  invalidation: Invalidation;
  scheduler: Scheduler;
  log: StartLog;
  mailer?: Mailer;
}

export async function startFlows(parts: FlowParts): Promise<FlowsService> {
  const { config, db, engine, schema, invalidation, scheduler, log, mailer } = parts;
  const flows = new FlowsService({
    config,
    db,
    items: engine.items,
    writer: engine.writer,
    schema: () => schema.current,
    log: { info: (message) => log.info(message), warn: (message) => log.warn(message) },
    events: engine.events,
    scheduler,
    ...(mailer ? { mailer } : {}),
  });
  invalidation.after('flows', () => flows.changed());
  invalidation.after('caches', () => flows.changed());
  await flows.start();
  return flows;
}
