/**
 * The filters of rows written through a nested payload, as Directus runs them (each nested write goes through its
 * collection's ItemsService): an object under an m2o / a2o field or in an o2m / m2m / m2a list runs
 * `<related>.items.create` (no key) or `.items.update` (`{keys: [key]}`: it names its key), a detailed form's
 * `delete` list runs `.items.delete` on the keys. Each runs on the payload its parent's filter answered, depth
 * first, and what it answers is what is planned; a throw refuses the whole write. Nothing is walked unless a
 * filter is registered.
 */
import type { Executor } from '../../db/connection.js';
import { keyOfValues } from '../../plan/row-key.js';
import type { WriteContext } from '../../plan/write-context.js';
import { isPayload } from '../../plan/write-context.js';
import type { Payload } from '../../request/write-body.js';
import type { CollectionOverview } from '../../schema/types.js';
import type { EventContext, EventEmitter } from '../events/event-emitter.js';
import { itemsEventNames } from '../events/event-names.js';

interface Walk {
  events: EventEmitter;
  ctx: WriteContext;
  context: EventContext;
}

/** `payload` (of `collection`) with its nested payloads filtered; the same object when no filter changed any. */
export async function filterNested(
  events: EventEmitter,
  collection: string,
  payload: Payload,
  ctx: WriteContext,
  tx: Executor,
): Promise<Payload> {
  if (!events.hasAnyFilter()) return payload;
  const walk: Walk = { events, ctx, context: { accountability: ctx.accountability, schema: ctx.schema, database: tx } };
  return nestedOf(walk, ctx.schema.collections[collection], payload);
}

async function nestedOf(walk: Walk, collection: CollectionOverview | undefined, payload: Payload): Promise<Payload> {
  if (!collection) return payload;
  let out: Payload | null = null;
  for (const [name, link] of Object.entries(collection.links)) {
    const value = payload[name];
    if (value === undefined || value === null) continue;
    let next: unknown = value;
    if (link.kind === 'o2m') next = await children(walk, link.related, value);
    else if (isPayload(value)) {
      const related = link.kind === 'm2o' ? link.related : payload[link.collectionField];
      if (typeof related === 'string') next = await item(walk, related, value);
    }
    if (next === value) continue;
    out ??= Object.assign(Object.create(null) as Payload, payload);
    out[name] = next;
  }
  return out ?? payload;
}

/** One nested object: its filter (create, or update of the key it names), then its own nested payloads. */
async function item(walk: Walk, name: string, value: Payload): Promise<Payload> {
  const related = walk.ctx.schema.collections[name];
  if (!related) return value;
  const key = related.keyFields.length ? keyOfValues(related, value) : undefined;
  const action = key === undefined || key === null ? 'create' : 'update';
  const names = itemsEventNames(name, action);
  let filtered = value;
  if (walk.events.hasFilter(names)) {
    const meta = action === 'update' ? { keys: [key], collection: name } : { collection: name };
    const answer = await walk.events.emitFilter<unknown>(names, value, meta, walk.context);
    if (isPayload(answer)) filtered = answer;
  }
  return nestedOf(walk, related, filtered);
}

/** An o2m value: the basic array (objects filtered, keys kept) or the detailed `{create, update, delete}` form. */
async function children(walk: Walk, name: string, value: unknown): Promise<unknown> {
  const list = async (items: unknown): Promise<unknown> => {
    if (!Array.isArray(items)) return items;
    let changed = false;
    const out: unknown[] = [];
    for (const element of items) {
      const next = isPayload(element) ? await item(walk, name, element) : element;
      if (next !== element) changed = true;
      out.push(next);
    }
    return changed ? out : items;
  };
  if (Array.isArray(value)) return list(value);
  if (!isPayload(value)) return value;
  const out: Payload = Object.assign(Object.create(null) as Payload, value);
  let changed = false;
  for (const part of ['create', 'update'] as const) {
    if (value[part] === undefined) continue;
    out[part] = await list(value[part]);
    if (out[part] !== value[part]) changed = true;
  }
  const names = itemsEventNames(name, 'delete');
  if (Array.isArray(value.delete) && value.delete.length && walk.events.hasFilter(names)) {
    const keys = await walk.events.emitFilter<unknown>(names, [...value.delete], { collection: name }, walk.context);
    if (Array.isArray(keys)) {
      out.delete = keys;
      changed = true;
    }
  }
  return changed ? out : value;
}
