/**
 * The wire shapes of /fields, /collections and /relations (Directus docs: Collections), made from the
 * schema overview.
 */
import type {
  CollectionOverview,
  ColumnInfo,
  FieldMeta,
  FieldOverview,
  RelationOverview,
  ServiceType,
} from '../schema/types.js';

export interface FieldObject {
  collection: string;
  field: string;
  type: ServiceType;
  meta: FieldMeta | null;
  schema: ColumnInfo | null;
}

export interface CollectionObject {
  collection: string;
  meta: CollectionOverview['meta'];
  schema: { name: string; comment: string | null } | null;
}

/** The field schema object as the API shows it (internal facts such as enum values left out). */
function publicSchema(field: FieldOverview): ColumnInfo {
  const { enum_values: _values, collation: _collation, ...schema } = field.schema!;
  return { ...schema, default_value: wireDefault(field.type, schema.default_value) };
}

export function fieldObject(collection: string, field: FieldOverview): FieldObject {
  return {
    collection,
    field: field.field,
    type: field.type,
    meta: field.meta,
    schema: field.schema ? publicSchema(field) : null,
  };
}

/** Catalogs write boolean and numeric defaults as they store them (`1`, `'0'`); the field object speaks its type. */
function wireDefault(type: ServiceType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (type === 'boolean') {
    if (value === true || value === 1 || value === '1' || value === 'true') return true;
    if (value === false || value === 0 || value === '0' || value === 'false') return false;
    return value;
  }
  if ((type === 'integer' || type === 'float') && typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value))
    return Number(value);
  return value;
}

export function collectionFields(collection: CollectionOverview): FieldObject[] {
  return collection.fieldOrder.map((name) => fieldObject(collection.collection, collection.fields[name]!));
}

export function collectionObject(collection: CollectionOverview): CollectionObject {
  return {
    collection: collection.collection,
    meta: collection.meta,
    schema: collection.schema ? { ...collection.schema } : null,
  };
}

export function relationObject(relation: RelationOverview): RelationOverview {
  return {
    collection: relation.collection,
    field: relation.field,
    related_collection: relation.related_collection,
    schema: relation.schema ? { ...relation.schema } : null,
    meta: relation.meta ? { ...relation.meta } : null,
  };
}
