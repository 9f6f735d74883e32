/**
 * Field bodies of POST /fields/{c} and PATCH /fields/{c}[/{f}] (Directus docs: Fields) → a checked FieldInput. Pure: what
 * the body asks for, not yet compared with the database. `undefined` everywhere means "not given". Keys Strata
 * does not read (at the top, in `meta`, in `schema`) are ignored, as Directus ignores them.
 */
import { Type, type Static } from '@sinclair/typebox';
import { InvalidPayloadError } from '../../errors/catalogue.js';
import { checkBody, compileSchema, Nullable } from '../../request/body-check.js';
import type { FieldMeta, ServiceType } from '../../schema/types.js';
import {
  defined,
  Name,
  ObjectOf,
  ObjectSteps,
  OptionalArray,
  OptionalBoolean,
  OptionalFlag,
  OptionalInteger,
  OptionalObject,
  OptionalOneOf,
  OptionalString,
  OptionalStringList,
  stringList,
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
const UNSUPPORTED_TYPES = new Set([
  'geometry',
  'geometry.Point',
  'geometry.LineString',
  'geometry.Polygon',
  'geometry.MultiPoint',
  'geometry.MultiLineString',
  'geometry.MultiPolygon',
  'unknown',
]);

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

const Meta = Type.Object({
  translations: OptionalArray(),
  conditions: OptionalArray(),
  special: OptionalStringList(),
  interface: OptionalString(),
  options: OptionalObject(),
  display: OptionalString(),
  display_options: OptionalObject(),
  readonly: OptionalBoolean(),
  hidden: OptionalBoolean(),
  sort: OptionalInteger(-2147483648, 2147483647),
  width: OptionalOneOf(WIDTHS),
  note: OptionalString(),
  required: OptionalBoolean(),
  group: OptionalString(),
  validation: OptionalObject(),
  validation_message: OptionalString(),
  searchable: OptionalBoolean(),
});

const Schema = Type.Object({
  max_length: OptionalInteger(1, 65535),
  numeric_precision: OptionalInteger(1, 65),
  numeric_scale: OptionalInteger(0, 30),
  is_nullable: OptionalFlag(),
  is_unique: OptionalFlag(),
  is_indexed: OptionalFlag(),
  is_primary_key: OptionalFlag(),
  has_auto_increment: OptionalFlag(),
  is_generated: OptionalFlag(),
  comment: OptionalString(),
  default_value: Type.Optional(
    Type.Unsafe({
      type: ['string', 'number', 'boolean', 'object', 'array', 'null'],
      errorMessage: '"schema.default_value" must be a string, number, boolean, object, array or null',
    }),
  ),
});

/** One field object; `what` names a body that is not an object. Type names are resolved below (aliases, support). */
const fieldSteps = [
  Type.Object({ field: Name('Field') }),
  Type.Object({ type: Type.Optional(Nullable(Type.String())) }),
  Type.Object({ meta: Type.Optional(Nullable(Meta)) }),
  Type.Object({ schema: Type.Optional(Nullable(Schema)) }),
] as const;
const field = (what: string) => ObjectSteps(what, [...fieldSteps]);
type FieldBody = Static<ReturnType<typeof field>>;

export const FieldUpdateBody = compileSchema(field('Payload'));
/** A new field names its type. */
export const FieldCreateBody = compileSchema(
  ObjectSteps('Payload', [...fieldSteps, Type.Object({ type: Type.String({ errorMessage: '"type" is required' }) })]),
);
export const FieldBatchItem = compileSchema(field('Each field'));
const Payload = compileSchema(ObjectOf('Payload'));

export function parseFieldCreate(body: unknown, collection: string): FieldInput {
  return parseField(checkBody(FieldCreateBody, body), collection);
}

export function parseFieldUpdate(body: unknown, collection: string, field: string): FieldInput {
  const object = checkBody(Payload, body) as Body;
  if (object.field !== undefined && object.field !== field) {
    throw new InvalidPayloadError(
      `Field "${field}" can't be renamed to "${String(object.field)}": renaming fields is not supported`,
    );
  }
  return parseField(checkBody(FieldUpdateBody, { ...object, field }), collection);
}

const Batch = compileSchema(Type.Array(Type.Unknown(), { errorMessage: 'Submitted body has to be an array' }));

/** PATCH /fields/{c}: an array of fields, each naming itself (each checked as a FieldBatchItem). */
export const FieldBatchBody = Type.Array(FieldBatchItem);

export function parseFieldBatch(body: unknown, collection: string): FieldInput[] {
  return checkBody(Batch, body).map((item) => parseFieldBatchItem(item, collection));
}

/** One element of PATCH /fields/{c} (array). */
export function parseFieldBatchItem(body: unknown, collection: string): FieldInput {
  return parseField(checkBody(FieldBatchItem, body), collection);
}

/** The rules a schema cannot state: the collection it belongs to, type names, keys the meta repeats. */
function parseField(body: FieldBody & Body, collection: string): FieldInput {
  const { field } = body;
  if (body.collection !== undefined && body.collection !== collection) {
    throw new InvalidPayloadError(`"collection" must be "${collection}"`);
  }
  const input: FieldInput = { field };
  if (body.type !== undefined && body.type !== null) {
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
  if (body.meta !== undefined) input.meta = body.meta === null ? null : parseMeta(body.meta, field);
  if (body.schema !== undefined) input.schema = body.schema === null ? null : parseSchema(body.schema);
  return input;
}

function parseMeta(meta: Static<typeof Meta> & Body, field: string): MetaInput {
  if (meta.field !== undefined && meta.field !== null && meta.field !== field)
    throw new InvalidPayloadError(`"meta.field" must be "${field}"`);
  return defined<MetaInput>({
    special: stringList(meta.special),
    interface: meta.interface,
    options: meta.options,
    display: meta.display,
    display_options: meta.display_options,
    readonly: nonNull(meta.readonly, false),
    hidden: nonNull(meta.hidden, false),
    sort: meta.sort,
    width: meta.width,
    translations: meta.translations,
    note: meta.note,
    conditions: meta.conditions,
    required: nonNull(meta.required, false),
    group: meta.group,
    validation: meta.validation,
    validation_message: meta.validation_message,
    searchable: nonNull(meta.searchable, true),
  } as MetaInput);
}

function nonNull<T>(value: T | null | undefined, fallback: T): T | undefined {
  return value === null ? fallback : (value as T | undefined);
}

function parseSchema(schema: Static<typeof Schema> & Body): SchemaInput {
  const { default_value: _default, ...rest } = schema;
  const input = defined<SchemaInput>({
    max_length: rest.max_length,
    numeric_precision: rest.numeric_precision,
    numeric_scale: rest.numeric_scale,
    is_nullable: rest.is_nullable,
    is_unique: rest.is_unique,
    is_indexed: rest.is_indexed,
    is_primary_key: rest.is_primary_key,
    has_auto_increment: rest.has_auto_increment,
    is_generated: rest.is_generated,
    comment: rest.comment,
  });
  if ('default_value' in schema) input.default_value = schema.default_value;
  if (input.numeric_precision != null && input.numeric_scale != null && input.numeric_scale > input.numeric_precision) {
    throw new InvalidPayloadError(`"schema.numeric_scale" can't be larger than "schema.numeric_precision"`);
  }
  return input;
}
