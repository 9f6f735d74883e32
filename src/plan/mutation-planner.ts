/**
 * Payloads + schema + accountability → MutationPlan / DeletePlan (pure, synchronous). Everything that can be
 * checked without the database is checked here, before any SQL runs: unknown fields (403 FORBIDDEN), value types,
 * lengths, required and non-nullable fields, field validation rules — all failures of the whole request answered
 * together — and MAX_BATCH_MUTATION. Permissions: admins write everything; everyone else writes what the rules of
 * `ctx.access` grant (write-rules.ts), and nothing at all without it.
 */
import { collectionForbidden, fieldForbidden, ForbiddenError, InvalidPayloadError, MethodNotAllowedError, throwAll, type ServiceError } from '../errors/catalogue.js';
import type { Accountability } from '../permissions/accountability.js';
import { ITEM_SYSTEM_COLLECTIONS } from '../schema/system-meta.js';
import type { CollectionOverview, FieldOverview, SchemaOverview } from '../schema/types.js';
import type { DeletePlan, Key, MutationPlan, RowWrite } from './mutation-plan.js';
import { planChildren, planParent } from './nested-write-plan.js';
import { isRequired, nullError, refusesNull, requiredError, ruleErrors } from './validation.js';
import { hasCompositeKey, isKeyField, keyFieldsOf, keyParts, parseKey } from './row-key.js';
import { coerceKey } from './value-coercion.js';
import type { WriteAccess, WriteAction } from './write-access.js';
import { applyRules, rulesFor } from './write-rules.js';
import { specialValue } from './write-specials.js';
import { lengthProblem, writeValue, WriteValueProblem } from './write-values.js';

export interface WriteContext {
  schema: SchemaOverview;
  accountability: Accountability;
  now: Date;
  /** A new v4 uuid (for `uuid` specials). */
  uuid: () => string;
  /** Infinity = no limit. */
  maxBatchMutation: number;
  /** The caller's write rules; without them a non-admin writes nothing (admins need none). */
  access?: WriteAccess;
  /** Opens the service_* collections that have routes of their own (the system routes set it). */
  system?: boolean;
}

/** A collection nested writes may reach: a table with a key; a service_* one only from the system routes. */
export function writeTarget(name: string, ctx: WriteContext): CollectionOverview {
  const collection = ctx.schema.collections[name];
  if (!collection || !collection.schema) throw collectionForbidden(name);
  if (collection.system && !(ctx.system && ITEM_SYSTEM_COLLECTIONS.has(name))) throw collectionForbidden(name);
  if (!ctx.accountability.admin && !ctx.access) throw collectionForbidden(name);
  if (collection.view) throw new MethodNotAllowedError(['GET', 'SEARCH'], `Collection "${name}" is a view: its items are read-only`);
  return collection;
}

/** State of one planning pass: the failures found so far and the rows counted. */
export interface Planning {
  ctx: WriteContext;
  errors: ServiceError[];
  rowCount: number;
}

type Payload = Record<string, unknown>;

/** What reads answer for a concealed field: sent back, it keeps the stored value. */
export const CONCEALED = '**********';
/** Path segments (a field, then an index) allowed under one item: deeper payloads are refused, not overflowed. */
const MAX_PATH = 200;

export function isPayload(value: unknown): value is Payload {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A collection items may be written to: a table with a key, not a service_* table (unless `ctx.system`), on which
 * the caller has a rule for `action` when one is named.
 */
export function writableCollection(name: string, ctx: WriteContext, action?: WriteAction): CollectionOverview {
  const collection = writeTarget(name, ctx);
  if (action) rulesFor(ctx, collection, action);
  if (collection.keyFields.length === 0) throw new ForbiddenError(`Items of collection "${name}" can't be written: it has no primary key.`);
  return collection;
}

function start(ctx: WriteContext): Planning {
  return { ctx, errors: [], rowCount: 0 };
}

function finish(planning: Planning, rowCount = planning.rowCount): void {
  if (rowCount > planning.ctx.maxBatchMutation) throw new InvalidPayloadError(`Exceeded max batch mutation limit of ${planning.ctx.maxBatchMutation}`);
  // The same data written to several keys fails the same way for each: say it once.
  const seen = new Set<string>();
  throwAll(planning.errors.filter((error) => {
    const id = JSON.stringify([error.code, error.message, error.extensions]);
    return !seen.has(id) && Boolean(seen.add(id));
  }));
}

/** POST: each payload becomes a created row (with its nested writes). */
export function planCreate(collectionName: string, items: Payload[], many: boolean, ctx: WriteContext): MutationPlan {
  const collection = writableCollection(collectionName, ctx, 'create');
  const planning = start(ctx);
  const rows = items.map((item, i) => planRow(planning, collection, item, 'create', null, many ? [i] : [], null));
  finish(planning);
  return { collection, rows, rowCount: planning.rowCount };
}

/** PATCH: each payload updates the row of its key; a key that cannot be one is FORBIDDEN (as a missing row is). */
export function planUpdate(collectionName: string, entries: { key: unknown; payload: Payload }[], many: boolean, ctx: WriteContext): MutationPlan {
  const collection = writableCollection(collectionName, ctx, 'update');
  const planning = start(ctx);
  const rows = entries.map(({ key, payload }, i) => {
    if (key === undefined || key === null) throw new InvalidPayloadError(`"[${i}]" must contain the primary key "${collection.keyFields.join('", "')}"`);
    const coerced = parseKey(collection, key);
    if (coerced === null) throw new ForbiddenError();
    return planRow(planning, collection, payload, 'update', coerced, many ? [i] : [], null);
  });
  finish(planning);
  return { collection, rows, rowCount: planning.rowCount };
}

export function planDelete(collectionName: string, keys: unknown[], ctx: WriteContext): DeletePlan {
  const collection = writableCollection(collectionName, ctx, 'delete');
  const coerced = keys.map((key) => parseKey(collection, key));
  if (coerced.some((key) => key === null)) throw new ForbiddenError();
  const unique = [...new Map(coerced.map((key) => [String(key), key as Key])).values()];
  finish(start(ctx), unique.length);
  return { collection, keys: unique };
}

function where(path: (string | number)[]): string {
  return path.length ? path.join('.') : 'root';
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
  const row: RowWrite = { collection, action, key, values: {}, hashFields: [], parents: [], children: [], filledByParent, path };
  // An upsert's rules are known once its lookup tells create from update (resolveUpsert).
  if (action === 'upsert' && !planning.ctx.accountability.admin) row.payload = payload;
  planning.rowCount += 1;
  if (path.length > MAX_PATH) throw new InvalidPayloadError(`Nested payloads can't be deeper than ${MAX_PATH / 2} relations`);
  const composite = hasCompositeKey(collection);
  for (const [name, value] of Object.entries(payload)) {
    if (value === undefined) continue;
    const field = collection.fields[name];
    if (!field) {
      // Directus drops the keys an admin sends to a system collection that it does not have (`POST /users
      // {name}`); seed scripts rely on it. Elsewhere, and for everyone else, an unknown field stays an error.
      if (collection.system && planning.ctx.accountability.admin) continue;
      throw fieldForbidden(name, collection.collection, where(path));
    }
    const link = collection.links[name];
    if (link?.kind === 'o2m') {
      const children = planChildren(planning, link, value, [...path, name]);
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
      row.parents.push(planParent(planning, collection, link, payload, value, [...path, name]));
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
    // Create or update is decided during execution; what fails either way fails now.
    for (const [name, value] of Object.entries(row.values)) if (value === null && refusesNull(collection.fields[name]!)) planning.errors.push(nullError(name, path));
  }
  return row;
}

/**
 * A payload's (or preset's) value of a plain column → its logical value on the row; hash fields are marked for
 * hashing, other values checked against the column's length. Failures are collected, not thrown.
 */
export function setValue(planning: Planning, row: RowWrite, field: FieldOverview, value: unknown): void {
  try {
    const logical = writeValue(row.collection, field, value, row.path);
    row.values[field.field] = logical;
    if (field.type === 'hash' && typeof logical === 'string' && logical !== '') row.hashFields.push(field.field);
    else {
      const tooLong = lengthProblem(row.collection, field, logical);
      if (tooLong) planning.errors.push(tooLong);
    }
  } catch (error) {
    if (!(error instanceof WriteValueProblem)) throw error;
    planning.errors.push(error.error);
  }
}

/** The payload's primary key: the key of a create; on an update it may only repeat the row's key. */
function planKey(planning: Planning, row: RowWrite, value: unknown): void {
  const primary = keyFieldsOf(row.collection)[0]!;
  if (value === null) {
    if (row.action === 'create') return;
    throw new InvalidPayloadError(`The primary key "${primary.field}" can't be changed`);
  }
  const key = parseKey(row.collection, value);
  if (key === null) {
    planning.errors.push(new InvalidPayloadError(`Invalid primary key "${String(value)}" for field "${primary.field}"`, { collection: row.collection.collection, field: primary.field, path: row.path }));
    return;
  }
  if (row.action === 'create') {
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
  if (given === null || String(given) !== String(current)) throw new InvalidPayloadError(`The primary key "${field.field}" can't be changed`);
}

/** An m2a junction's collection field may only name one of the relation's allowed collections. */
function checkAnyCollections(collection: CollectionOverview, payload: Payload): void {
  for (const link of Object.values(collection.links)) {
    if (link.kind !== 'a2o') continue;
    const named = payload[link.collectionField];
    if (named === undefined || named === null) continue;
    if (typeof named !== 'string' || !link.allowed.includes(named)) {
      throw new InvalidPayloadError(`"${String(named)}" is not one of the collections allowed in "${collection.collection}.${link.field}" (${link.allowed.join(', ')})`);
    }
  }
}

/**
 * Once a row's action is known: the values of special flags, then the required and non-nullable checks. Upserts
 * come here during execution, when the lookup of their key has told create from update.
 */
export function completeRow(planning: Planning, row: RowWrite, action: 'create' | 'update'): void {
  row.action = action;
  const { collection } = row;
  const sources = planning.ctx;
  const { special, checked } = fieldsToComplete(collection);
  for (const field of special) {
    const name = field.field;
    if (field.primaryKey && row.key !== null) continue;
    const given = specialValue(field, action, row.values[name], sources);
    if (given === undefined) continue;
    try {
      const logical = writeValue(collection, field, given instanceof Date && !['date', 'dateTime', 'timestamp', 'time'].includes(field.type) ? given.toISOString() : given, row.path);
      row.values[name] = logical;
      if (field.primaryKey) row.key = logical as Key;
    } catch (error) {
      if (!(error instanceof WriteValueProblem)) throw error;
      planning.errors.push(error.error);
    }
  }
  for (const field of checked) {
    const name = field.field;
    const value = row.values[name];
    if (value !== null && (value !== undefined || action !== 'create')) continue;
    if (name === row.filledByParent || row.parents.some((parent) => parent.field === name)) continue;
    if (value === null && refusesNull(field)) planning.errors.push(nullError(name, row.path));
    else if (action === 'create' && value === undefined && isRequired(field) && !(field.primaryKey && row.key !== null)) {
      planning.errors.push(requiredError(name, row.path));
    }
  }
}

/** Per collection (the schema is immutable): the columns with special flags, and those a create or a null can fail. */
const completion = new WeakMap<CollectionOverview, { special: FieldOverview[]; checked: FieldOverview[] }>();

function fieldsToComplete(collection: CollectionOverview): { special: FieldOverview[]; checked: FieldOverview[] } {
  let found = completion.get(collection);
  if (!found) {
    const fields = collection.fieldOrder.map((name) => collection.fields[name]!).filter((field) => field.schema && !field.schema.is_generated);
    found = { special: fields.filter((field) => field.special.length > 0), checked: fields.filter((field) => isRequired(field) || refusesNull(field)) };
    completion.set(collection, found);
  }
  return found;
}

/**
 * An upsert whose key lookup is done: an existing row is updated (when the payload changes anything), a missing one
 * created with that key. Returns the failures the created row's checks found.
 */
export function resolveUpsert(row: RowWrite, exists: boolean, ctx: WriteContext): ServiceError[] {
  const planning = start(ctx);
  if (row.payload) applyRules(planning, row, exists ? 'update' : 'create', row.payload);
  if (exists) {
    // The key columns a composite-key upsert named only say which row it is.
    if (hasCompositeKey(row.collection)) {
      const parts = keyParts(row.collection, row.key!);
      row.collection.keyFields.forEach((name, i) => {
        if (String(row.values[name]) === String(parts[i])) delete row.values[name];
      });
    }
    if (Object.keys(row.values).length === 0 && row.parents.length === 0 && row.children.length === 0) row.action = 'update';
    else completeRow(planning, row, 'update');
  } else {
    const parts = keyParts(row.collection, row.key!);
    row.collection.keyFields.forEach((name, i) => (row.values[name] = parts[i]));
    completeRow(planning, row, 'create');
  }
  return planning.errors;
}
