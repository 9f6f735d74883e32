/**
 * Payloads + schema + accountability → the draft MutationPlan / DeletePlan (pure, synchronous). Everything that can
 * be checked without the database is checked here, before any SQL runs (keys that are no field are dropped), value
 * types, lengths, required and non-nullable fields, field validation rules — all failures of the whole request
 * answered together — and MAX_BATCH_MUTATION. Permissions: admins write everything; everyone else writes what the
 * rules of `ctx.access` grant (write-rules.ts), and nothing at all without it. Upserts (nested objects naming a
 * key, a singleton's row) stay open in the draft: write-resolution.ts settles them from the lookups.
 */
import { ForbiddenError, InvalidPayloadError } from '../errors/catalogue.js';
import type { Payload } from '../request/write-body.js';
import { CONCEALED } from '../schema/concealed.js';
import type { CollectionOverview, FieldOverview } from '../schema/types.js';
import type { DeletePlan, Key, MutationPlan, RowWrite } from './mutation-plan.js';
import { planChildren, planParent } from './nested-write-plan.js';
import { hasCompositeKey, isKeyField, keyFieldsOf, keyParts, parseKey } from './row-key.js';
import { coerceKey } from './value-coercion.js';
import { nullError, refusesNull, ruleErrors } from './validation.js';
import type { WriteAction } from './write-access.js';
import {
  finishPlanning,
  isPayload,
  refuseValue,
  setValue,
  startPlanning,
  writeTarget,
  type Planning,
  type WriteContext,
} from './write-context.js';
import { completeRow } from './row-completion.js';
import { applyRules, rulesFor } from './write-rules.js';
import { lengthProblem } from './write-values.js';

/** Path segments (a field, then an index) allowed under one item: deeper payloads are refused, not overflowed. */
const MAX_PATH = 200;

/**
 * The collection of a write: writable (a table with a key; a service_* one only from the system routes), and the
 * caller has a rule for `action` on it. Checked once per request, by ItemsWriter.open.
 */
export function itemsCollection(name: string, ctx: WriteContext, action?: WriteAction): CollectionOverview {
  const collection = writeTarget(name, ctx);
  if (action) rulesFor(ctx, collection, action);
  if (collection.keyFields.length === 0)
    throw new ForbiddenError(`Items of collection "${name}" can't be written: it has no primary key.`);
  return collection;
}

/** POST: each payload becomes a created row (with its nested writes). `collection` comes from itemsCollection. */
export function planCreate(
  collection: CollectionOverview,
  items: Payload[],
  many: boolean,
  ctx: WriteContext,
): MutationPlan {
  const planning = startPlanning(ctx);
  const rows = items.map((item, i) => planRow(planning, collection, item, 'create', null, many ? [i] : [], null));
  finishPlanning(planning);
  return { collection, rows, rowCount: planning.rowCount };
}

/**
 * PATCH of a singleton: its one row is updated, or created when it has none; which, the lookup of its key tells
 * (write-resolution.ts). Drafted as an upsert without a key.
 */
export function planSingleton(collection: CollectionOverview, payload: Payload, ctx: WriteContext): MutationPlan {
  const planning = startPlanning(ctx);
  const rows = [planRow(planning, collection, payload, 'upsert', null, [], null)];
  finishPlanning(planning);
  return { collection, rows, rowCount: planning.rowCount };
}

/**
 * PATCH: each payload updates the row of its key; a key that cannot be one is FORBIDDEN (as a missing row is).
 * `shared`: the entries carry one `data` for many keys (`{keys, data}`, `{query, data}`), whose m2o / a2o objects
 * are one row for all of them (o2m items are still written per key, as Directus writes them).
 */
export function planUpdate(
  collection: CollectionOverview,
  entries: { key: unknown; payload: Payload }[],
  many: boolean,
  ctx: WriteContext,
  shared = false,
): MutationPlan {
  const planning = startPlanning(ctx);
  if (shared) planning.sharedParents = new Map();
  const rows = entries.map(({ key, payload }, i) => {
    if (key === undefined || key === null)
      throw new InvalidPayloadError(`"[${i}]" must contain the primary key "${collection.keyFields.join('", "')}"`);
    const coerced = parseKey(collection, key);
    if (coerced === null) throw new ForbiddenError();
    return planRow(planning, collection, payload, 'update', coerced, many ? [i] : [], null);
  });
  finishPlanning(planning);
  return { collection, rows, rowCount: planning.rowCount };
}

export function planDelete(collection: CollectionOverview, keys: unknown[], ctx: WriteContext): DeletePlan {
  const coerced = keys.map((key) => parseKey(collection, key));
  if (coerced.some((key) => key === null)) throw new ForbiddenError();
  const unique = [...new Map(coerced.map((key) => [String(key), key as Key])).values()];
  finishPlanning(startPlanning(ctx, unique.length));
  return { collection, keys: unique };
}

/** One item of a payload → a RowWrite; nested objects and arrays become parent and child writes. */
export function planRow(
  planning: Planning,
  collection: CollectionOverview,
  payload: Payload,
  action: RowWrite['action'],
  key: Key | null,
  path: (string | number)[],
  filledByParent: string | null,
): RowWrite {
  const row: RowWrite = {
    collection,
    action,
    key,
    values: {},
    hashFields: [],
    parents: [],
    children: [],
    filledByParent,
    path,
  };
  // An upsert's rules are known once its lookup tells create from update (write-resolution.ts).
  if (action === 'upsert' && !planning.ctx.accountability.admin) row.payload = payload;
  planning.rowCount += 1;
  if (path.length > MAX_PATH)
    throw new InvalidPayloadError(`Nested payloads can't be deeper than ${MAX_PATH / 2} relations`);
  const composite = hasCompositeKey(collection);
  for (const [name, value] of Object.entries(payload)) {
    if (value === undefined) continue;
    const field = collection.fields[name];
    // A key that is no field is dropped, as Directus drops it (seed scripts send extra ones): for admins always; for
    // others where their rule grants `*` — a rule listing its fields refuses it like any field it doesn't grant
    // (write-rules.ts, which sees the whole payload), so no field's existence shows.
    if (!field) continue;
    const link = collection.links[name];
    if (link?.kind === 'o2m') {
      const children = planChildren(planRow, planning, link, value, [...path, name]);
      if (children) row.children.push(children);
      continue;
    }
    // Alias fields without a relation are presentation only; generated columns are computed by the database.
    if (!field.schema || field.schema.is_generated) continue;
    if (isKeyField(collection, name)) {
      if (composite) planKeyPart(planning, row, field, value);
      else planKey(planning, row, value);
      continue;
    }
    // A concealed value sent back as read (`**********`) is not a new value: the stored one stays.
    if (field.concealed && value === CONCEALED && action !== 'create') continue;
    if (isPayload(value) && (link?.kind === 'm2o' || link?.kind === 'a2o')) {
      const shared = path.length === 0 ? planning.sharedParents : undefined;
      const parent =
        shared?.get(name) ?? planParent(planRow, planning, collection, link, payload, value, [...path, name]);
      shared?.set(name, parent);
      row.parents.push(parent);
      continue;
    }
    setValue(planning, row, field, value);
  }
  checkAnyCollections(collection, payload);
  planning.errors.push(...ruleErrors(collection, payload, path));
  if (action !== 'upsert') {
    applyRules(planning, row, action, payload);
    completeRow(planning, row, action);
  } else {
    // Create or update is decided by the lookup inside the transaction; what fails either way fails now.
    for (const [name, value] of Object.entries(row.values))
      if (value === null && refusesNull(collection.fields[name]!)) planning.errors.push(nullError(name, path));
  }
  return row;
}

/** The payload's primary key: the key of a create; on an update it may only repeat the row's key. */
function planKey(planning: Planning, row: RowWrite, value: unknown): void {
  const primary = keyFieldsOf(row.collection)[0]!;
  // A singleton's draft (an upsert without a key yet) takes a key like a create; its lookup checks it.
  const creating = row.action === 'create' || row.key === null;
  if (value === null) {
    if (creating) return;
    throw new InvalidPayloadError(`The primary key "${primary.field}" can't be changed`);
  }
  const key = parseKey(row.collection, value);
  if (key === null) {
    refuseValue(
      planning,
      row,
      primary.field,
      new InvalidPayloadError(`Invalid primary key "${String(value)}" for field "${primary.field}"`, {
        collection: row.collection.collection,
        field: primary.field,
        path: row.path,
      }),
    );
    return;
  }
  if (creating) {
    row.key = key;
    row.values[primary.field] = key;
    const tooLong = lengthProblem(row.collection, primary, key);
    if (tooLong) planning.errors.push(tooLong);
  } else if (String(key) !== String(row.key)) {
    throw new InvalidPayloadError(`The primary key "${primary.field}" can't be changed`);
  }
}

/**
 * One column of a composite key: a value of a create (the key is complete once every column has one, possibly from
 * the o2m parent); on an update or upsert it may only repeat the row's value for that column.
 */
function planKeyPart(planning: Planning, row: RowWrite, field: FieldOverview, value: unknown): void {
  if (row.action === 'create' || row.key === null) {
    if (value === null && row.action === 'create') return;
    setValue(planning, row, field, value);
    return;
  }
  const given = coerceKey(field, value);
  const current = keyParts(row.collection, row.key)[row.collection.keyFields.indexOf(field.field)];
  if (given === null || String(given) !== String(current))
    throw new InvalidPayloadError(`The primary key "${field.field}" can't be changed`);
}

/** An m2a junction's collection field may only name one of the relation's allowed collections. */
function checkAnyCollections(collection: CollectionOverview, payload: Payload): void {
  for (const link of Object.values(collection.links)) {
    if (link.kind !== 'a2o') continue;
    const named = payload[link.collectionField];
    if (named === undefined || named === null) continue;
    if (typeof named !== 'string' || !link.allowed.includes(named)) {
      throw new InvalidPayloadError(
        `"${String(named)}" is not one of the collections allowed in "${collection.collection}.${link.field}" (${link.allowed.join(', ')})`,
      );
    }
  }
}
