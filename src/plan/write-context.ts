/**
 * What every stage of write planning shares: the caller's context, the state of one planning pass (failures found so
 * far, rows counted against MAX_BATCH_MUTATION, checked in `finishPlanning` only), the collections a write may reach,
 * and how one payload value becomes a column value of a planned row.
 */
import {
  collectionForbidden,
  InvalidPayloadError,
  MethodNotAllowedError,
  throwAll,
  type ServiceError,
} from '../errors/catalogue.js';
import type { Accountability } from '../permissions/accountability.js';
import type { Payload } from '../request/write-body.js';
import { ITEM_SYSTEM_COLLECTIONS } from '../schema/system-meta.js';
import type { CollectionOverview, FieldOverview, SchemaOverview } from '../schema/types.js';
import type { Key, ParentWrite, RowWrite } from './mutation-plan.js';
import type { WriteAccess } from './write-access.js';
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
  /** Fields of one collection that the service sets from what it measured, whatever the caller's field rules. */
  serviceFields?: { collection: string; fields: ReadonlySet<string> };
  /** Where the write came from, for its activity rows (ip, user agent, origin); default: the caller's ip. */
  client?: { ip: string | null; userAgent: string | null; origin: string | null };
  /** false: the write leaves no activity nor revisions. */
  trail?: boolean;
  /** false: the write sets off no event flows (a flow's own item operation without `emitEvents`). */
  flowEvents?: boolean;
}

/** Plans one payload item under `collection` (mutation-planner.ts); nested planning calls back through it. */
export type PlanRow = (
  planning: Planning,
  collection: CollectionOverview,
  payload: Payload,
  action: RowWrite['action'],
  key: Key | null,
  path: (string | number)[],
  filledByParent: string | null,
) => RowWrite;

/** State of one planning pass: the failures found so far and the rows counted. */
export interface Planning {
  ctx: WriteContext;
  errors: ServiceError[];
  rowCount: number;
  /**
   * Per row, the fields whose given value was refused (out of range, malformed): that failure is the field's one
   * error, so a create does not also call the field missing (as Directus answers).
   */
  refused: WeakMap<RowWrite, Set<string>>;
  /**
   * A batch update's one `data` for many keys: its m2o / a2o objects by field, planned once and shared by every
   * key's row (written once, counted once), as Directus writes them before updating the keys.
   */
  sharedParents?: Map<string, ParentWrite>;
}

export function startPlanning(ctx: WriteContext, rowCount = 0): Planning {
  return { ctx, errors: [], rowCount, refused: new WeakMap() };
}

/** Records a refused value of `field` on `row` with its error. */
export function refuseValue(planning: Planning, row: RowWrite, field: string, error: ServiceError): void {
  planning.errors.push(error);
  const fields = planning.refused.get(row);
  if (fields) fields.add(field);
  else planning.refused.set(row, new Set([field]));
}

/** The one place MAX_BATCH_MUTATION is enforced; then every failure found, each said once. */
export function finishPlanning(planning: Planning): void {
  if (planning.rowCount > planning.ctx.maxBatchMutation)
    throw new InvalidPayloadError(`Exceeded max batch mutation limit of ${planning.ctx.maxBatchMutation}`);
  // The same data written to several keys fails the same way for each: say it once.
  const seen = new Set<string>();
  throwAll(
    planning.errors.filter((error) => {
      const id = JSON.stringify([error.code, error.message, error.extensions]);
      return !seen.has(id) && Boolean(seen.add(id));
    }),
  );
}

export function isPayload(value: unknown): value is Payload {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function where(path: (string | number)[]): string {
  return path.length ? path.join('.') : 'root';
}

/** service_* collections an item's nested write may reach (an article creating its image's row, as in Directus). */
const NESTED_SYSTEM: ReadonlySet<string> = new Set(['service_files', 'service_folders']);

/**
 * A collection writes may reach: a table (not a view); a service_* one only from the system routes, or nested
 * (`nested`) for the file library's.
 */
export function writeTarget(name: string, ctx: WriteContext, nested = false): CollectionOverview {
  const collection = ctx.schema.collections[name];
  if (!collection || !collection.schema) throw collectionForbidden(name);
  const reachable = ctx.system || (nested && NESTED_SYSTEM.has(name));
  if (collection.system && !(reachable && ITEM_SYSTEM_COLLECTIONS.has(name))) throw collectionForbidden(name);
  if (!ctx.accountability.admin && !ctx.access) throw collectionForbidden(name);
  if (collection.view)
    throw new MethodNotAllowedError(['GET', 'SEARCH'], `Collection "${name}" is a view: its items are read-only`);
  return collection;
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
    refuseValue(planning, row, field.field, error.error);
  }
}
