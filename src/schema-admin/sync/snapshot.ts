/**
 * Schema snapshots in Directus's format (`{version, directus, vendor, collections, fields, relations}`), built from
 * the schema overview. The `schema` parts hold the database-independent attributes only (no `data_type`, constraint
 * names or precision of integer types): a snapshot taken on one database compares with, and applies to, another.
 * Service tables are left out, as Directus leaves out its directus_* tables, except the fields an admin added to them
 * (service_users...), which a snapshot keeps as Directus keeps its custom fields of system collections. Views are left
 * out too: their definition is SQL a snapshot does not carry, and an apply would create them as tables. Fields are
 * listed in column order (alias fields last), the order an apply creates them in.
 */
import { createHash } from 'node:crypto';
import type { FieldOverview, SchemaOverview, ServiceType } from '../../schema/types.js';
import { collectionObject, fieldObject, relationObject } from '../schema-objects.js';
import { VERSION } from '../../version.js';
import { isCustomSystemField } from '../../schema/system-meta.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface SnapshotCollection {
  collection: string;
  meta: Json;
  schema: { name: string; comment?: string | null } | null;
}
export interface SnapshotField {
  collection: string;
  field: string;
  type: string;
  meta: Json;
  schema: Record<string, Json> | null;
}
export interface SnapshotRelation {
  collection: string;
  field: string;
  related_collection: string | null;
  meta: Json;
  schema: Record<string, Json> | null;
}
export interface Snapshot {
  version: number;
  directus: string;
  vendor: string;
  collections: SnapshotCollection[];
  fields: SnapshotField[];
  relations: SnapshotRelation[];
}

/** Types whose length means the same everywhere (a uuid is `uuid` on PostgreSQL, `char(36)` on MariaDB). */
const SIZED: ServiceType[] = ['string', 'csv', 'hash'];

function plain<T>(value: T): Json {
  return JSON.parse(JSON.stringify(value ?? null)) as Json;
}

function withoutId(meta: object | null): Json {
  if (!meta) return null;
  const { id: _id, ...rest } = meta as Record<string, unknown>;
  return plain(rest);
}

function fieldSchema(field: FieldOverview, collection: string): Record<string, Json> | null {
  const schema = fieldObject(collection, field).schema;
  if (!schema) return null;
  return {
    name: schema.name,
    table: schema.table,
    default_value: schema.has_auto_increment ? null : portableDefault(field.type, plain(schema.default_value)),
    max_length: SIZED.includes(field.type) ? schema.max_length : null,
    numeric_precision: field.type === 'decimal' ? schema.numeric_precision : null,
    numeric_scale: field.type === 'decimal' ? schema.numeric_scale : null,
    is_nullable: schema.is_nullable,
    is_unique: schema.is_unique || schema.is_primary_key,
    is_primary_key: schema.is_primary_key,
    has_auto_increment: schema.has_auto_increment,
    foreign_key_table: schema.foreign_key_table,
    foreign_key_column: schema.foreign_key_column,
  };
}

const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2})(:\d{2})?(\.\d+)?(Z|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * A default as every database spells it: a timestamp literal as an ISO instant (PostgreSQL reads back
 * `2024-01-02 03:04:05+00`, MariaDB `2024-01-02 03:04:05.000`, SQLite the ISO text it was given), a dateTime literal
 * as `YYYY-MM-DD HH:mm:ss`; the clock as a date's default is the date (PostgreSQL takes `now()` there). Function
 * defaults are spelled alike by introspection already.
 */
export function portableDefault(type: string, value: Json): Json {
  if (type === 'date' && value === 'CURRENT_TIMESTAMP') return 'CURRENT_DATE';
  if (typeof value !== 'string' || (type !== 'timestamp' && type !== 'dateTime')) return value;
  const m = DATE_TIME.exec(value.trim());
  if (!m) return value;
  if (type === 'dateTime') return `${m[1]} ${m[2]}${m[3] ?? ':00'}`;
  const offset = m[5] && m[5] !== 'Z' ? m[5].replace(':', '') : null;
  const zone = offset ? `${offset.slice(0, 3)}:${offset.slice(3) || '00'}` : 'Z';
  const instant = new Date(`${m[1]}T${m[2]}${m[3] ?? ':00'}${(m[4] ?? '').slice(0, 4)}${zone}`);
  return Number.isNaN(instant.getTime()) ? value : instant.toISOString();
}

export function takeSnapshot(schema: SchemaOverview, vendor: string): Snapshot {
  const names = Object.keys(schema.collections)
    .filter((name) => !schema.collections[name]!.system && !schema.collections[name]!.view)
    .sort();
  const collections = names.map((name) => {
    const object = collectionObject(schema.collections[name]!);
    return { collection: name, meta: plain(object.meta), schema: object.schema ? { name: object.schema.name } : null };
  });
  // Every field of a user collection (views left out); of a system collection, only an admin's own.
  const userCollections = new Set(names);
  const kept = (name: string, field: string) =>
    userCollections.has(name) || (schema.collections[name]!.system && isCustomSystemField(name, field));
  const fields = Object.keys(schema.collections).flatMap((name) => {
    const collection = schema.collections[name]!;
    return collection.fieldOrder
      .filter((field) => kept(name, field))
      .map((f) => collection.fields[f]!)
      .map((field) => ({
        collection: name,
        field: field.field,
        type: field.type,
        meta: withoutId(field.meta),
        schema: fieldSchema(field, name),
      }));
  });
  const relations = schema.relations
    .filter((relation) => userCollections.has(relation.collection))
    .map(relationObject)
    .map((relation) => ({
      collection: relation.collection,
      field: relation.field,
      related_collection: relation.related_collection,
      meta: withoutId(relation.meta),
      schema: relation.schema
        ? {
            table: relation.schema.table,
            column: relation.schema.column,
            foreign_key_table: relation.schema.foreign_key_table,
            foreign_key_column: relation.schema.foreign_key_column,
            on_delete: normalizeAction(relation.schema.on_delete),
          }
        : null,
    }))
    .sort((a, b) => a.collection.localeCompare(b.collection) || a.field.localeCompare(b.field));
  return { version: 1, directus: VERSION, vendor, collections, fields, relations };
}

/** `NO ACTION` and `RESTRICT` behave alike for a single statement; databases report one or the other. */
function normalizeAction(action: string | null): string {
  const upper = (action ?? 'NO ACTION').toUpperCase();
  return upper === 'RESTRICT' ? 'NO ACTION' : upper;
}

/** The hash a diff carries: of the snapshot it was computed against (keys sorted, so order does not matter). */
export function snapshotHash(snapshot: Snapshot): string {
  const { collections, fields, relations } = snapshot;
  return createHash('sha256').update(stableJson({ collections, fields, relations })).digest('hex');
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${stableJson((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}
