/**
 * The outbox side of a write (engine/write/write-outbox.ts): for each change and each active action event flow that
 * listens to it, one service_flow_deliveries row in the write's own transaction, holding the flow's `$trigger`
 * (Directus's action meta: event, collection, key or keys, payload) and the writer's accountability. A create of
 * several items is one event per item (as Directus's createMany raises one per item); an update or a delete one.
 */
import { randomUUID } from 'node:crypto';
import type { Executor } from '../db/connection.js';
import type { Dialect } from '../db/dialect.js';
import { insertDeliveries, type NewDelivery } from '../db/repositories/flow-deliveries.js';
import type { ChangeEvent, ChangeRecorder } from '../engine/write/change-events.js';
import type { WriteOutbox } from '../engine/write/write-outbox.js';
import type { WriteContext } from '../plan/write-context.js';
import type { CollectionOverview } from '../schema/types.js';
import { eventName, flowType, listensTo } from './event-matching.js';
import type { FlowStore } from './flow-store.js';
import type { FlowDefinition } from './flow-types.js';
import { hookDeliveries } from './hook-deliveries.js';
import type { EventEmitter } from '../engine/events/event-emitter.js';

const CONCEALED = '**********';

/** An item's written values with its concealed fields (hashes, tokens) hidden, as reads answer them. */
function shown(values: Record<string, unknown> | undefined, collection: CollectionOverview | undefined) {
  if (!values) return undefined;
  const out = Object.create(null) as Record<string, unknown>;
  for (const [field, value] of Object.entries(values))
    out[field] = collection?.fields[field]?.concealed && value !== null ? CONCEALED : value;
  return out;
}

function triggers(event: ChangeEvent, changes: ChangeRecorder, collection: CollectionOverview | undefined): unknown[] {
  const base = { event: eventName(event.collection, event.action), collection: event.collection };
  const values = (key: unknown) => shown(changes.valuesOf(event.collection, event.action, key as never), collection);
  if (event.action === 'create') return event.keys.map((key) => ({ ...base, key, payload: values(key) ?? {} }));
  if (event.action === 'update') return [{ ...base, keys: event.keys, payload: values(event.keys[0]) ?? {} }];
  return [{ ...base, keys: event.keys, payload: event.keys }];
}

export class FlowOutbox implements WriteOutbox {
  private actionFlows: FlowDefinition[] | null = null;

  constructor(
    private readonly store: FlowStore,
    private readonly dialect: Dialect,
    private readonly wake: () => void,
    /** Where extensions' durable actions are registered (hook-deliveries.ts). */
    private readonly events: EventEmitter | null = null,
  ) {
    // Until read again, writes keep their values (an action flow may have been added).
    store.onChange(() => {
      this.actionFlows = null;
      void this.refresh().catch(() => {});
    });
  }

  /** Reads the action event flows (at start, and after every change of the flows). */
  async refresh(): Promise<void> {
    const flows = await this.store.active('event');
    this.actionFlows = flows.filter((flow) => flowType(flow) === 'action');
  }

  listening(): boolean {
    return this.actionFlows === null || this.actionFlows.length > 0 || this.handlesHooks();
  }

  /** Whether the writes' durable actions are recorded here (the writer then leaves them out of its actions). */
  handlesHooks(): boolean {
    return this.events?.hasDurableActions() ?? false;
  }

  async record(tx: Executor, changes: ChangeRecorder, ctx: WriteContext): Promise<boolean> {
    const flows = (await this.store.active('event', tx)).filter((flow) => flowType(flow) === 'action');
    if (flows.length === 0 && !this.handlesHooks()) return false;
    const rows: NewDelivery[] = [];
    for (const event of changes.events()) {
      const listening = flows.filter((flow) => listensTo(flow, event.collection, event.action));
      const collection = ctx.schema.collections[event.collection];
      if (this.events?.hasDurableActions()) {
        const metas = triggers(event, changes, collection) as Record<string, unknown>[];
        rows.push(...hookDeliveries(this.events, event, metas, ctx.accountability));
      }
      if (listening.length === 0) continue;
      for (const trigger of triggers(event, changes, collection)) {
        const payload = JSON.stringify({ trigger, accountability: ctx.accountability });
        for (const flow of listening)
          rows.push({ id: randomUUID(), flow: flow.id, event: eventName(event.collection, event.action), payload });
      }
    }
    if (rows.length === 0) return false;
    await insertDeliveries(tx, this.dialect, rows, Date.now());
    return true;
  }

  committed(): void {
    this.wake();
  }
}
