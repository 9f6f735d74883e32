/**
 * Field bodies of POST /fields/{c} and PATCH /fields/{c}[/{f}] (Directus docs: Fields) → a checked FieldInput. Pure: what
 * the body asks for, not yet compared with the database. `undefined` everywhere means "not given". Keys Strata
 * does not read (at the top, in `meta`, in `schema`) are ignored, as Directus ignores them.
 */
import { InvalidPayloadError } from '../errors/catalogue.js';
import type { FieldMeta, ServiceType } from './types.js';
import {
  defined,
  isObject,
  optionalArray,
  optionalBoolean,
  optionalInteger,
  optionalJsonObject,
  optionalOneOf,
  optionalString,
  optionalStringList,
  requireObject,
  validName,
  type Body,
} from './input-checks.js';

/** Types a field can be created with: Directus docs: Field types, less geometry (no GeoJSON support yet) and `unknown`. */
export const CREATABLE_TYPES: readonly ServiceType[] = [
  'string',
  'text',
  'integer',
  'bigInteger',
  'float',
  'decimal',
  'boolean',
  'date',
  'dateTime',
  'timestamp',
  'time',
  'json',
  'uuid',
  'binary',
  'csv',
  'hash',
  'alias',
];

/** Directus's alias types: all create an `alias` field (no column) with the type as its special flag. */
const ALIAS_TYPES = new Set(['alias', 'o2m', 'm2m', 'm2a', 'o2a', 'files', 'translations', 'group']);
const UNSUPPORTED_TYPES = new Set(['geometry', 'geometry.Point', 'geometry.LineString', 'geometry.Polygon', 'geometry.MultiPoint', 'geometry.MultiLineString', 'geometry.MultiPolygon', 'unknown']);

export const WIDTHS = ['half', 'half-left', 'half-right', 'half-space', 'full', 'fill'] as const;

export type MetaInput = Partial<Omit<FieldMeta, 'id' | 'collection' | 'field'>>;

export interface SchemaInput {
  /** Present (even as null) when the body sets it. */
  default_value?: unknown;
  max_length?: number | null;
  numeric_precision?: number | null;
  numeric_scale?: number | null;
  is_nullable?: boolean;
  is_unique?: boolean;
  is_indexed?: boolean;
  is_primary_key?: boolean;
  has_auto_increment?: boolean;
  /** Only as read back: generated columns are not created through the API. */
  is_generated?: boolean;
  comment?: string | null;
}

export interface FieldInput {
  field: string;
  /** undefined: keep (update) / required (create). */
  type?: ServiceType;
  /** Special flag implied by an alias type name (`o2m` …), added when meta.special does not say. */
  aliasSpecial?: string;
  meta?: MetaInput | null;
  schema?: SchemaInput | null;
}


export function parseFieldCreate(body: unknown, collection: string): FieldInput {
  const input = parseField(requireObject(body, 'Payload'), collection);
  if (input.type === undefined) throw new InvalidPayloadError(`"type" is required`);
  return input;
}

export function parseFieldUpdate(body: unknown, collection: string, field: string): FieldInput {
  const object = requireObject(body, 'Payload');
  if (object.field !== undefined && object.field !== field) {
    throw new InvalidPayloadError(`Field "${field}" can't be renamed to "${String(object.field)}": renaming fields is not supported`);
  }
  return parseField({ ...object, field }, collection);
}

/** One element of PATCH /fields/{c} (array): each names its field. */
export function parseFieldBatchItem(body: unknown, collection: string): FieldInput {
  const object = requireObject(body, 'Each field');
  return parseField(object, collection);
}

function parseField(body: Body, collection: string): FieldInput {
  const field = validName(body.field, 'Field');
  if (body.collection !== undefined && body.collection !== collection) {
    throw new InvalidPayloadError(`"collection" must be "${collection}"`);
  }
  const input: FieldInput = { field };
  if (body.type !== undefined && body.type !== null) {
    if (typeof body.type !== 'string') throw new InvalidPayloadError(`"type" must be a string`);
    if (UNSUPPORTED_TYPES.has(body.type)) throw new InvalidPayloadError(`Type "${body.type}" is not supported`);
    if (ALIAS_TYPES.has(body.type)) {
      input.type = 'alias';
      if (body.type !== 'alias') input.aliasSpecial = body.type;
    } else if ((CREATABLE_TYPES as readonly string[]).includes(body.type)) {
      input.type = body.type as ServiceType;
    } else {
      throw new InvalidPayloadError(`Type "${body.type}" is unknown; use one of ${CREATABLE_TYPES.join(', ')}`);
    }
  }
  if (body.meta !== undefined) input.meta = body.meta === null ? null : parseMeta(requireObject(body.meta, '"meta"'), field);
  if (body.schema !== undefined) input.schema = body.schema === null ? null : parseSchema(requireObject(body.schema, '"schema"'));
  return input;
}

export function parseMeta(meta: Body, field: string): MetaInput {
  if (meta.field !== undefined && meta.field !== null && meta.field !== field) throw new InvalidPayloadError(`"meta.field" must be "${field}"`);
  const p = 'meta.';
  const translations = optionalArray(meta, 'translations', p);
  const conditions = optionalArray(meta, 'conditions', p);
  return defined<MetaInput>({
    special: optionalStringList(meta, 'special', p),
    interface: optionalString(meta, 'interface', p),
    options: optionalJsonObject(meta, 'options', p),
    display: optionalString(meta, 'display', p),
    display_options: optionalJsonObject(meta, 'display_options', p),
    readonly: nonNull(optionalBoolean(meta, 'readonly', p, true), false),
    hidden: nonNull(optionalBoolean(meta, 'hidden', p, true), false),
    sort: optionalInteger(meta, 'sort', p, -2147483648, 2147483647),
    width: optionalOneOf(meta, 'width', p, WIDTHS, true),
    translations,
    note: optionalString(meta, 'note', p),
    conditions,
    required: nonNull(optionalBoolean(meta, 'required', p, true), false),
    group: optionalString(meta, 'group', p),
    validation: optionalJsonObject(meta, 'validation', p),
    validation_message: optionalString(meta, 'validation_message', p),
    searchable: nonNull(optionalBoolean(meta, 'searchable', p, true), true),
  });
}

function nonNull<T>(value: T | null | undefined, fallback: T): T | undefined {
  return value === null ? fallback : (value as T | undefined);
}

function parseSchema(schema: Body): SchemaInput {
  const p = 'schema.';
  const input = defined<SchemaInput>({
    max_length: optionalInteger(schema, 'max_length', p, 1, 65535),
    numeric_precision: optionalInteger(schema, 'numeric_precision', p, 1, 65),
    numeric_scale: optionalInteger(schema, 'numeric_scale', p, 0, 30),
    is_nullable: optionalBoolean(schema, 'is_nullable', p) ?? undefined,
    is_unique: optionalBoolean(schema, 'is_unique', p) ?? undefined,
    is_indexed: optionalBoolean(schema, 'is_indexed', p) ?? undefined,
    is_primary_key: optionalBoolean(schema, 'is_primary_key', p) ?? undefined,
    has_auto_increment: optionalBoolean(schema, 'has_auto_increment', p) ?? undefined,
    is_generated: optionalBoolean(schema, 'is_generated', p) ?? undefined,
    comment: optionalString(schema, 'comment', p),
  });
  if ('default_value' in schema) {
    const value = schema.default_value;
    if (value !== null && !['string', 'number', 'boolean'].includes(typeof value) && !isObject(value) && !Array.isArray(value)) {
      throw new InvalidPayloadError(`"schema.default_value" must be a string, number, boolean, object, array or null`);
    }
    input.default_value = value;
  }
  if (input.numeric_precision != null && input.numeric_scale != null && input.numeric_scale > input.numeric_precision) {
    throw new InvalidPayloadError(`"schema.numeric_scale" can't be larger than "schema.numeric_precision"`);
  }
  return input;
}
