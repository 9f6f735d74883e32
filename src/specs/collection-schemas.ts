/**
 * Component schemas of the collections a caller may read: one object per collection with the fields it may read,
 * typed as Strata answers them (bigInteger and decimal as exact strings, dates as text, JSON as any value), with
 * nullability, `maxLength` and the field's note; relations as "the key, or the related object when expanded".
 * Writes get their own input schemas holding the fields the caller may write (create: the columns a row cannot do
 * without are required).
 */
import { readable, type CollectionView, type AccessView } from '../graphql/access-view.js';
import type { CollectionOverview, FieldOverview, SchemaOverview } from '../schema/types.js';
import { emptyRecord } from '../request/prototype-keys.js';
import { nullable, pascalCase, ref, type JsonSchema, type OasVersion } from './json-schema.js';

/** Component names per collection: `ItemsArticles` for user collections, `Users` for service_users. */
export class ComponentNames {
  private readonly taken = new Set<string>();
  private readonly byCollection = new Map<string, string>();

  constructor(reserved: Iterable<string>) {
    for (const name of reserved) this.taken.add(name);
  }

  /** A fresh name based on `base` (numbered when a stranger already holds it). */
  claim(base: string): string {
    let name = base;
    for (let i = 2; this.taken.has(name); i++) name = `${base}${i}`;
    this.taken.add(name);
    return name;
  }

  assign(view: CollectionView): string {
    const base = view.collection.system ? pascalCase(view.typeName) : `Items${pascalCase(view.collection.collection)}`;
    const name = this.claim(base);
    this.byCollection.set(view.collection.collection, name);
    return name;
  }

  of(collection: string): string | undefined {
    return this.byCollection.get(collection);
  }
}

/** A value as reads answer it (column types; see docs/api.md, "Values"). */
export function valueSchema(field: FieldOverview): JsonSchema {
  switch (field.type) {
    case 'integer':
      return { type: 'integer' };
    case 'bigInteger':
      return { type: 'string', format: 'int64', pattern: '^-?[0-9]+$' };
    case 'decimal':
      return { type: 'string', format: 'decimal', pattern: '^-?[0-9]+(\\.[0-9]+)?$' };
    case 'float':
      return { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'date':
      return { type: 'string', format: 'date', example: '2024-01-15' };
    case 'dateTime':
      return { type: 'string', example: '2024-01-15T10:30:00' };
    case 'timestamp':
      return { type: 'string', format: 'date-time', example: '2024-01-15T10:30:00.000Z' };
    case 'time':
      return { type: 'string', example: '10:30:00' };
    case 'uuid':
      return { type: 'string', format: 'uuid' };
    case 'csv':
      return { type: 'array', items: { type: 'string' } };
    case 'geometry':
      return { type: 'object' };
    case 'json':
    case 'unknown':
      return {};
    case 'hash':
      return { type: 'string', format: 'password' };
    default: {
      const max = field.schema?.max_length;
      return max && max > 0 ? { type: 'string', maxLength: max } : { type: 'string' };
    }
  }
}

/** The key of a collection's rows (what relational fields hold unexpanded). */
export function keySchema(collection: CollectionOverview | undefined): JsonSchema {
  const primary = collection?.primary ? collection.fields[collection.primary] : undefined;
  if (!primary) return { oneOf: [{ type: 'string' }, { type: 'integer' }] };
  const { type, format } = valueSchema(primary);
  return format ? { type, format } : { type };
}

export interface SchemaContext {
  schema: SchemaOverview;
  view: AccessView;
  names: ComponentNames;
  version: OasVersion;
}

/** A related row: its key, or (expanded with `fields`) the object, when the caller may read that collection. */
function relatedSchema(ctx: SchemaContext, related: string): JsonSchema {
  const key = keySchema(ctx.schema.collections[related]);
  const component = readable(ctx.view, related) ? ctx.names.of(related) : undefined;
  return component ? { oneOf: [key, ref(component)] } : key;
}

/** The schema of one field of `collection`, or null for fields that hold no value (presentation aliases). */
export function fieldSchema(ctx: SchemaContext, collection: CollectionOverview, name: string): JsonSchema | null {
  const field = collection.fields[name]!;
  const link = collection.links[name];
  let schema: JsonSchema;
  if (link?.kind === 'm2o') schema = relatedSchema(ctx, link.related);
  else if (link?.kind === 'o2m') return describe({ type: 'array', items: relatedSchema(ctx, link.related) }, field);
  else if (link?.kind === 'a2o') {
    const options = link.allowed
      .filter((related) => readable(ctx.view, related))
      .map((related) => ref(ctx.names.of(related)!));
    // anyOf: a row of one collection may well fit another's schema (no field is required in reads).
    schema = { anyOf: [{ type: 'string' }, { type: 'integer' }, ...options] };
  } else if (!field.schema) return null;
  else schema = valueSchema(field);
  return describe(field.nullable ? nullable(schema, ctx.version) : schema, field);
}

function describe(schema: JsonSchema, field: FieldOverview): JsonSchema {
  const extra: JsonSchema = {};
  if (field.meta?.note) extra.description = field.meta.note;
  if (field.schema?.is_generated) extra.readOnly = true;
  if (!Object.keys(extra).length) return schema;
  // 3.0 ignores the siblings of a $ref; keep the reference whole under allOf.
  return schema.$ref ? { allOf: [schema], ...extra } : { ...schema, ...extra };
}

/** The read schema of a collection: every field the caller may read, none required (`fields` picks them). */
export function readSchema(ctx: SchemaContext, view: CollectionView): JsonSchema {
  // Keyed by column names, which an existing database may have named `__proto__`: on no prototype.
  const properties: Record<string, JsonSchema> = emptyRecord();
  for (const name of view.fields) {
    const schema = fieldSchema(ctx, view.collection, name);
    if (schema) properties[name] = schema;
  }
  const result: JsonSchema = { type: 'object', properties, 'x-collection': view.collection.collection };
  if (view.collection.meta?.note) result.description = view.collection.meta.note;
  return result;
}

/**
 * The body of a create or update: the fields the caller's rules let it write (generated columns never). Creates
 * require the NOT NULL columns without default, auto-increment or special flag (the database would refuse the row).
 */
export function inputSchema(ctx: SchemaContext, view: CollectionView, kind: 'create' | 'update'): JsonSchema {
  const { collection } = view;
  const writable = view.writeFields[kind];
  const properties: Record<string, JsonSchema> = emptyRecord();
  const required: string[] = [];
  for (const name of collection.fieldOrder) {
    const field = collection.fields[name]!;
    if ((writable && !writable.has(name)) || field.schema?.is_generated) continue;
    const schema = fieldSchema(ctx, collection, name);
    if (!schema) continue;
    properties[name] = schema;
    const column = field.schema;
    if (
      kind === 'create' &&
      column &&
      !field.nullable &&
      !column.has_auto_increment &&
      column.default_value === null &&
      !field.special.length
    )
      required.push(name);
  }
  const result: JsonSchema = { type: 'object', properties, 'x-collection': collection.collection };
  if (required.length) result.required = required;
  return result;
}
