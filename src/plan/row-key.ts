/**
 * Row keys, of one column or several. A table whose primary key has several columns (`post_categories(post_id,
 * category_id)`) is addressed by all of them, never by the first alone: taking one column as "the key" made writes
 * change rows nobody named. A composite key travels as one string, its columns' values in key order joined by
 * commas (`7,2`), a comma or percent sign inside a value written `%2C` / `%25`; `keys` arrays and payloads may also
 * give it as an object naming every key column (`{"post_id":7,"category_id":2}`). A key of one column is its value,
 * as before. The string form is canonical: two spellings of one key compare equal as strings once parsed.
 */
import type { CollectionOverview, FieldOverview } from '../schema/types.js';
import { coerceKey } from './value-coercion.js';

export type Key = string | number;

/** The key columns, in key order; empty for a table without a primary key. */
export function keyFieldsOf(collection: CollectionOverview): FieldOverview[] {
  return collection.keyFields.map((name) => collection.fields[name]!);
}

export function hasCompositeKey(collection: CollectionOverview): boolean {
  return collection.keyFields.length > 1;
}

export function isKeyField(collection: CollectionOverview, name: string): boolean {
  return collection.keyFields.includes(name);
}

function encodePart(value: Key): string {
  return String(value).replace(/[%,]/g, (c) => (c === '%' ? '%25' : '%2C'));
}

function decodePart(text: string): string {
  return text.replace(/%(25|2C)/gi, (m) => (m === '%25' ? '%' : ','));
}

/** Logical key values (one per key column, already coerced) → the key. */
export function joinKey(parts: readonly Key[]): Key {
  return parts.length === 1 ? parts[0]! : parts.map(encodePart).join(',');
}

/**
 * A key given by a client (URL segment, `keys` element, payload value) → the key, or null when it cannot be one of
 * this collection (the caller answers like a missing row). Composite keys: the string form or an object.
 */
export function parseKey(collection: CollectionOverview, value: unknown): Key | null {
  const fields = keyFieldsOf(collection);
  if (fields.length === 0) return null;
  if (fields.length === 1) return coerceKey(fields[0]!, value);
  let parts: unknown[];
  if (typeof value === 'string') parts = value.split(',').map(decodePart);
  else if (typeof value === 'object' && value !== null && !Array.isArray(value))
    parts = fields.map((field) => (value as Record<string, unknown>)[field.field]);
  else return null;
  if (parts.length !== fields.length) return null;
  const coerced: Key[] = [];
  for (let i = 0; i < fields.length; i++) {
    const part = coerceKey(fields[i]!, parts[i]);
    if (part === null) return null;
    coerced.push(part);
  }
  return joinKey(coerced);
}

/** A parsed key → the value of each key column, in key order. */
export function keyParts(collection: CollectionOverview, key: Key): Key[] {
  const fields = keyFieldsOf(collection);
  if (fields.length <= 1) return [key];
  return String(key)
    .split(',')
    .map((part, i) => coerceKey(fields[i]!, decodePart(part)) ?? decodePart(part));
}

/**
 * The key held by a row's (or payload's) column values: undefined when no key column is present, null when some
 * are missing or are not keys of their type.
 */
export function keyOfValues(collection: CollectionOverview, values: Record<string, unknown>): Key | null | undefined {
  const present = collection.keyFields.filter((name) => values[name] !== undefined && values[name] !== null);
  if (present.length === 0) return undefined;
  if (present.length < collection.keyFields.length) return null;
  if (collection.keyFields.length === 1) return coerceKey(keyFieldsOf(collection)[0]!, values[present[0]!]);
  return parseKey(collection, values);
}
