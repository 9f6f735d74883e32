/**
 * The hook events of one item write (engine/events): the filters of its top-level payloads inside its transaction,
 * before any statement; the actions of everything it changed once it has committed. Directus's meta: a create's
 * filter gets the item and `{collection}`, its action `{key, payload, collection}` per item; an update's filter gets
 * the data and `{keys, collection}`, its action `{keys, payload, collection}`; a delete's filter gets the keys and
 * `{collection}`, its action `{keys, payload: keys, collection}`. Nested and cascaded changes raise the actions of
 * their own collection with their keys (payload `{}`: the executor holds columns, not the caller's nested object);
 * the filters of nested payloads run after their top-level payload's (nested-filters.ts).
 */
import type { Executor } from '../../db/connection.js';
import type { Key } from '../../plan/mutation-plan.js';
import type { WriteContext } from '../../plan/write-context.js';
import type { Payload } from '../../request/write-body.js';
import type { EventEmitter } from '../events/event-emitter.js';
import { itemsEventNames, type ItemsEventAction } from '../events/event-names.js';
import type { ChangeRecorder } from './change-events.js';
import { filterNested } from './nested-filters.js';

/** The top-level write as the caller gave it: what the filters see and the actions carry. */
export interface TopWrite {
  collection: string;
  action: ItemsEventAction;
  /** create: one per item; update: one per item (batch) or the one data (keys / query); delete: none. */
  payloads: Payload[];
  /** update and delete: the keys the payloads apply to (one per payload for a batch). */
  keys?: readonly unknown[];
  /** update: each payload applies to its own key (an array of items). */
  batch?: boolean;
}

/**
 * The top-level payloads after the filters (delete: the keys, as `payloads[0].keys`), or null when no filter is
 * registered or none changed anything (the caller keeps its plan).
 */
export async function filterWrite(
  events: EventEmitter | undefined,
  top: TopWrite,
  ctx: WriteContext,
  tx: Executor,
): Promise<{ payloads: Payload[]; keys?: unknown[] } | null> {
  if (!events?.hasAnyFilter()) return null;
  const names = itemsEventNames(top.collection, top.action);
  const own = events.hasFilter(names);
  const context = { accountability: ctx.accountability, schema: ctx.schema, database: tx };
  const meta = { collection: top.collection };
  if (top.action === 'delete') {
    if (!own) return null;
    const keys = await events.emitFilter(names, [...(top.keys ?? [])], meta, context);
    return { payloads: [], keys: Array.isArray(keys) ? (keys as unknown[]) : [...(top.keys ?? [])] };
  }
  let changed = false;
  const payloads: Payload[] = [];
  for (let i = 0; i < top.payloads.length; i++) {
    const keys = top.action === 'update' ? (top.batch ? [top.keys?.[i]] : top.keys) : undefined;
    const before = top.payloads[i]!;
    let payload = before;
    if (own) {
      const after = await events.emitFilter(names, before, keys ? { ...meta, keys } : meta, context);
      if (after && typeof after === 'object' && !Array.isArray(after)) payload = after as Payload;
    }
    // Then the rows it writes through nested payloads, as their own collection's writes (nested-filters.ts).
    payload = await filterNested(events, top.collection, payload, ctx, tx);
    if (payload !== before) changed = true;
    payloads.push(payload);
  }
  return changed ? { payloads } : null;
}

/**
 * After commit: the actions of every change of the write. `topKeys`: the keys of the top-level items in payload order
 * (create and batch update), or the keys the one update or the delete applied to.
 */
export function announceWrite(
  events: EventEmitter | undefined,
  top: TopWrite | null,
  topKeys: readonly Key[],
  changes: ChangeRecorder,
  ctx: WriteContext,
  database: Executor,
  /** The outbox recorded the durable actions (extensions'): only the others run here. */
  durableRecorded = false,
): void {
  if (!events) return;
  const context = { accountability: ctx.accountability, schema: ctx.schema, database };
  const emit: EventEmitter['emitAction'] = (names, meta, c) => events.emitAction(names, meta, c, !durableRecorded);
  for (const change of changes.events()) {
    const names = itemsEventNames(change.collection, change.action);
    if (durableRecorded ? !events.hasImmediateAction(names) : !events.hasAction(names)) continue;
    const collection = change.collection;
    const isTop = top !== null && top.collection === collection && top.action === change.action;
    const rest = isTop ? change.keys.filter((k) => !topKeys.some((t) => String(t) === String(k))) : change.keys;
    if (isTop) announceTop(emit, names, top, topKeys, context);
    if (!rest.length) continue;
    if (change.action === 'create') for (const key of rest) emit(names, { key, payload: {}, collection }, context);
    else {
      const payload = change.action === 'delete' ? rest : {};
      emit(names, { keys: rest, payload, collection }, context);
    }
  }
}

function announceTop(
  emit: EventEmitter['emitAction'],
  names: string[],
  top: TopWrite,
  keys: readonly Key[],
  context: Parameters<EventEmitter['emitAction']>[2],
): void {
  const { collection } = top;
  if (top.action === 'create')
    keys.forEach((key, i) => emit(names, { key, payload: top.payloads[i] ?? {}, collection }, context));
  else if (top.action === 'delete') emit(names, { keys, payload: keys, collection }, context);
  else if (top.batch)
    keys.forEach((key, i) => emit(names, { keys: [key], payload: top.payloads[i] ?? {}, collection }, context));
  else emit(names, { keys, payload: top.payloads[0] ?? {}, collection }, context);
}
