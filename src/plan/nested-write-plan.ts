/**
 * Nested relational payloads (Directus docs: Relational data) → parent and child writes.
 * m2o / a2o objects: without key → create, with key → update when it exists (create otherwise).
 * o2m / m2m / m2a: the basic array form (keys assign, objects create or upsert, rows not named are deselected) or
 * the detailed form `{create, update, delete}`. m2m and m2a are o2m writes of junction rows whose own m2o / a2o
 * field carries the related item, so every depth is the same two steps. Each nested item is planned by the
 * planner's `planRow`, passed in (the recursion stays one-way between files).
 */
import { collectionForbidden, ForbiddenError, InvalidPayloadError } from '../errors/catalogue.js';
import type { Payload } from '../request/write-body.js';
import type { CollectionOverview, RelationalLink } from '../schema/types.js';
import type { ChildWrites, Key, O2mLink, ParentWrite, RowWrite } from './mutation-plan.js';
import { emptyRecord } from '../request/prototype-keys.js';
import { hasCompositeKey, isKeyField, keyOfValues, parseKey } from './row-key.js';
import { isPayload, writeTarget, type Planning, type PlanRow } from './write-context.js';
import { checkField, rulesFor } from './write-rules.js';

function target(planning: Planning, name: string): CollectionOverview {
  const collection = writeTarget(name, planning.ctx, true);
  if (collection.keyFields.length === 0) throw collectionForbidden(name);
  return collection;
}

/** A key from a payload for `collection`; one that cannot be a key of its type is FORBIDDEN, like a missing row. */
function keyOf(collection: CollectionOverview, value: unknown): Key {
  const key = parseKey(collection, value);
  if (key === null) throw new ForbiddenError();
  return key;
}

/**
 * The key a nested object names: undefined when it names none (a create). A composite key must be named whole,
 * except for the column `filledBy` (the o2m parent's key), added when the draft is resolved.
 */
function givenKey(
  collection: CollectionOverview,
  element: Payload,
  filledBy: string | null,
  at: (string | number)[],
): Key | null | undefined {
  const key = keyOfValues(collection, element);
  if (key !== null) return key;
  if (!hasCompositeKey(collection)) throw new ForbiddenError();
  const missing = collection.keyFields.filter((name) => element[name] === undefined || element[name] === null);
  if (missing.length === 1 && missing[0] === filledBy) return null;
  throw new InvalidPayloadError(
    `"${at.join('.') || 'root'}" names part of the key of "${collection.collection}": give all of ${collection.keyFields.join(', ')}`,
  );
}

/** An object under an m2o or a2o field: the related row, written before the row that points at it. */
export function planParent(
  planRow: PlanRow,
  planning: Planning,
  collection: CollectionOverview,
  link: Exclude<RelationalLink, { kind: 'o2m' }>,
  payload: Payload,
  value: Payload,
  path: (string | number)[],
): ParentWrite {
  let related: CollectionOverview;
  if (link.kind === 'm2o') {
    related = target(planning, link.related);
    if (link.relatedField !== related.primary && value[link.relatedField] === undefined) {
      throw new InvalidPayloadError(
        `A nested item under "${link.field}" needs "${link.relatedField}", the field "${collection.collection}.${link.field}" refers to`,
      );
    }
  } else {
    const named = payload[link.collectionField];
    if (typeof named !== 'string')
      throw new InvalidPayloadError(
        `"${link.collectionField}" is required to write a nested item under "${link.field}"`,
      );
    // checkAnyCollections (planner) has refused names outside the allowed collections.
    related = target(planning, named);
  }
  const given = givenKey(related, value, null, path);
  const row =
    given === undefined
      ? planRow(planning, related, value, 'create', null, path, null)
      : planRow(planning, related, value, 'upsert', given, path, null);
  return { field: link.field, anyCollection: link.kind === 'a2o', row };
}

/**
 * A nested o2m item without its back-reference: the parent being written fills it, whatever the item says there (an
 * object builds no other parent; a placeholder such as `policy: "+"` is no value to check), as Directus overwrites it.
 * A back-reference that is part of a composite key stays: it names which row the item is.
 */
function withoutBackReference(element: Payload, related: CollectionOverview, field: string): Payload {
  if (element[field] === undefined || isKeyField(related, field)) return element;
  const rest: Payload = Object.assign(emptyRecord(), element);
  delete rest[field];
  return rest;
}

/** The value under an o2m field: the related rows to create, update, link and unlink. Null changes nothing. */
export function planChildren(
  planRow: PlanRow,
  planning: Planning,
  link: O2mLink,
  value: unknown,
  path: (string | number)[],
): ChildWrites | null {
  if (value === null) return null;
  const related = target(planning, link.related);
  const writes: ChildWrites = {
    link,
    related,
    replace: false,
    rows: [],
    updates: [],
    assign: [],
    remove: [],
    deselect: [],
  };
  const item = (named: Payload, at: (string | number)[], mode: 'create' | 'upsert' | 'update'): RowWrite => {
    const element = withoutBackReference(named, related, link.relatedField);
    const given = givenKey(related, element, link.relatedField, at);
    if (mode === 'update' && given === undefined)
      throw new InvalidPayloadError(
        `"${at.join('.')}" must contain the primary key "${related.keyFields.join('", "')}"`,
      );
    if (given === undefined || (given === null && mode === 'create'))
      return planRow(planning, related, element, 'create', null, at, link.relatedField);
    // A composite key completed by the parent's key (null here) is looked up once the parent's key is known.
    return planRow(planning, related, element, mode === 'create' ? 'create' : mode, given, at, link.relatedField);
  };

  if (Array.isArray(value)) {
    writes.replace = true;
    value.forEach((element, i) => {
      if (isPayload(element)) writes.rows.push(item(element, [...path, i], 'upsert'));
      else if ((typeof element === 'string' || typeof element === 'number') && !hasCompositeKey(related))
        writes.assign.push(keyOf(related, element));
      else if (typeof element === 'string' || typeof element === 'number')
        throw new InvalidPayloadError(
          `"${[...path, i].join('.')}": items of "${related.collection}" (a composite key) are linked as objects naming their key fields`,
        );
      else throw new InvalidPayloadError(`"${[...path, i].join('.')}" must be a primary key or an object`);
    });
  } else if (isPayload(value)) {
    const unknownKey = Object.keys(value).find((key) => !['create', 'update', 'delete'].includes(key));
    if (unknownKey !== undefined)
      throw new InvalidPayloadError(
        `"${[...path, unknownKey].join('.')}" is not allowed (use create, update and delete)`,
      );
    const list = (name: string): unknown[] => {
      const items = value[name] ?? [];
      if (!Array.isArray(items)) throw new InvalidPayloadError(`"${[...path, name].join('.')}" must be an array`);
      return items;
    };
    list('create').forEach((element, i) => {
      if (!isPayload(element)) throw new InvalidPayloadError(`"${[...path, 'create', i].join('.')}" must be an object`);
      writes.rows.push(item(element, [...path, 'create', i], 'create'));
    });
    list('update').forEach((element, i) => {
      if (!isPayload(element)) throw new InvalidPayloadError(`"${[...path, 'update', i].join('.')}" must be an object`);
      writes.updates.push(item(element, [...path, 'update', i], 'update'));
    });
    list('delete').forEach((element, i) => {
      if (
        typeof element !== 'string' &&
        typeof element !== 'number' &&
        !(hasCompositeKey(related) && isPayload(element))
      )
        throw new InvalidPayloadError(`"${[...path, 'delete', i].join('.')}" must be a primary key`);
      writes.remove.push(keyOf(related, element));
    });
  } else {
    throw new InvalidPayloadError(`"${path.join('.')}" must be an array or an object with create, update and delete`);
  }
  // Linking an existing row sets its foreign key: an update of that row (its item rule is checked on its lookup).
  if (writes.assign.length)
    checkField(planning.ctx, rulesFor(planning.ctx, related, 'update'), related, link.relatedField, path);
  planning.rowCount += writes.assign.length + writes.remove.length;
  return writes;
}
