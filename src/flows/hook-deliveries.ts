/**
 * Extension `action` hooks through the outbox: a write records, in its own transaction, one delivery per (event of
 * the write, durable action listening to it), and the delivery worker runs the handler after commit, at least once,
 * with the worker's retries and log. A row's `flow` column is `hook:` and a digest of the action's id (extension,
 * event, place among its actions: the same after a restart) to fit the column; the payload holds the id itself, the
 * handler's meta (Directus's action meta) and the writer's accountability.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Database } from '../db/connection.js';
import type { NewDelivery } from '../db/repositories/flow-deliveries.js';
import type { EventEmitter } from '../engine/events/event-emitter.js';
import { itemsEventNames } from '../engine/events/event-names.js';
import type { ChangeEvent } from '../engine/write/change-events.js';
import type { Accountability } from '../permissions/accountability.js';
import type { SchemaOverview } from '../schema/types.js';

const PREFIX = 'hook:';

export function isHookDelivery(flowColumn: string): boolean {
  return flowColumn.startsWith(PREFIX);
}

function hookColumn(id: string): string {
  return PREFIX + createHash('sha256').update(id).digest('hex').slice(0, 31);
}

/** The deliveries of one change's events (`metas`: one per event, Directus's action meta) for the durable actions. */
export function hookDeliveries(
  events: EventEmitter,
  event: ChangeEvent,
  metas: Record<string, unknown>[],
  accountability: Accountability | null,
): NewDelivery[] {
  const rows: NewDelivery[] = [];
  for (const name of itemsEventNames(event.collection, event.action)) {
    for (const id of events.durableActions(name)) {
      for (const meta of metas) {
        const payload = JSON.stringify({ hook: id, meta: { ...meta, event: name }, accountability });
        rows.push({ id: randomUUID(), flow: hookColumn(id), event: name, payload });
      }
    }
  }
  return rows;
}

export interface HookDeliveryDeps {
  events: EventEmitter;
  db: Database;
  schema: () => SchemaOverview;
  timeoutMs: number;
}

/**
 * Runs a hook delivery's handler; null when it succeeded, else the error. A hook not registered here (its extension
 * removed, or not loaded on this instance) fails like a throw: retried, then failed for good, kept in the log and
 * replayable — an event is never dropped silently.
 */
export async function deliverHook(deps: HookDeliveryDeps, payload: Record<string, unknown>): Promise<string | null> {
  const id = String(payload.hook);
  const handler = deps.events.durableAction(id);
  if (!handler) return `The action hook "${id}" is not registered`;
  const context = {
    accountability: (payload.accountability ?? null) as Accountability | null,
    schema: deps.schema(),
    database: deps.db,
  };
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`The hook ran longer than ${deps.timeoutMs}ms`)), deps.timeoutMs);
    });
    const work = Promise.resolve().then(() => handler(payload.meta as Record<string, unknown>, context));
    work.catch(() => {});
    await Promise.race([work, timeout]);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    clearTimeout(timer);
  }
}
