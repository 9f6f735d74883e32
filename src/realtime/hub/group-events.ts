/**
 * One event as one subscription group sees it: the re-read of the changed items with the group's query and reader
 * (nothing changes yet), then, once every group's read of the event is known to be good (no change of rights
 * overlapped it: subscription-hub.ts), what it means for the group's members — items entering their view (create),
 * staying in it (update), leaving it (delete) — applied to what the group has shown and sent.
 */
import { ForbiddenError } from '../../errors/catalogue.js';
import type { Key } from '../../plan/mutation-plan.js';
import { keyOfValues } from '../../plan/row-key.js';
import { ITEM_SYSTEM_COLLECTIONS } from '../../schema/system-meta.js';
import type { SchemaOverview } from '../../schema/types.js';
import type { ItemsService } from '../../engine/read/items-service.js';
import type { ChangeEvent } from '../../engine/write/change-events.js';
import type { SubscriptionGroup } from './subscription-group.js';
import type { SubscriptionEventName } from './subscription-sink.js';

export type Row = Record<string, unknown>;

export type Outcome =
  | { kind: 'delete'; keys: Key[] }
  | { kind: 'rows'; rows: Row[]; keyOf: (row: Row) => string; readable: Set<string> }
  | { kind: 'failed'; error: unknown };

/** `apart`: the event's items were each written on its own (ChangeEvent.apart). */
export type Send = (group: SubscriptionGroup, name: SubscriptionEventName, data: Row[] | Key[], apart: boolean) => void;

/** The service_* collections with items semantics are subscribable like /users reads them (their rules apply). */
export function readOptions(collection: string): { system?: boolean } {
  return ITEM_SYSTEM_COLLECTIONS.has(collection) ? { system: true } : {};
}

export function asRows(data: unknown): Row[] {
  return (Array.isArray(data) ? data : data ? [data] : []) as Row[];
}

/** Runs `work` over `items`, `limit` at a time; the results in the items' order. */
export async function mapLimited<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

/** The group's re-read of the event's items (nothing changes before `applyEvent`). */
export async function readEvent(
  items: ItemsService,
  schema: SchemaOverview,
  group: SubscriptionGroup,
  event: ChangeEvent,
): Promise<Outcome> {
  if (event.action === 'delete') return { kind: 'delete', keys: event.keys };
  try {
    const overview = schema.collections[group.collection];
    if (!overview) throw new ForbiddenError();
    const { data } = await items.rowsKeys(
      group.collection,
      event.keys,
      { ...group.query, limit: undefined, offset: undefined, page: undefined },
      group.reader,
      readOptions(group.collection),
    );
    const rows = asRows(data);
    const keyOf = (row: Row) => String(keyOfValues(overview, row));
    return { kind: 'rows', rows, keyOf, readable: new Set(rows.map(keyOf)) };
  } catch (error) {
    return { kind: 'failed', error };
  }
}

/** Sends what the group's read found: items entering its members' view, staying in it, or leaving it. */
export function applyEvent(
  group: SubscriptionGroup,
  event: ChangeEvent,
  outcome: Exclude<Outcome, { kind: 'failed' }>,
  sendAll: Send,
): void {
  const apart = event.apart === true;
  const send = (group: SubscriptionGroup, name: SubscriptionEventName, data: Row[] | Key[]) =>
    sendAll(group, name, data, apart);
  if (outcome.kind === 'delete') {
    const whole = group.overflowed || group.readsEveryRow;
    const gone = outcome.keys.filter((key) => group.forget(String(key)) || whole);
    // Keys as strings, as Directus sends a delete's keys (they come from the request's path or body).
    if (gone.length) send(group, 'delete', gone.map(String));
    return;
  }
  const { rows, keyOf, readable } = outcome;
  const entering = rows.filter((row) => event.action === 'create' || !group.showing(keyOf(row)));
  const staying = event.action === 'update' ? rows.filter((row) => group.showing(keyOf(row))) : [];
  const leaving: Key[] =
    event.action === 'update'
      ? event.keys.filter((key) => !readable.has(String(key)) && group.forget(String(key)))
      : [];
  for (const row of rows) group.show(keyOf(row));
  if (entering.length) send(group, 'create', group.visible(entering));
  if (staying.length) send(group, 'update', group.visible(staying));
  if (leaving.length) send(group, 'delete', leaving.map(String));
}
