/**
 * Bodies of POST /collections and PATCH /collections[/{c}] (Directus docs: Collections) → checked input. Pure.
 */
import { Type, type Static } from '@sinclair/typebox';
import { InvalidPayloadError } from '../../errors/catalogue.js';
import { checkBody, compileSchema, Nullable } from '../../request/body-check.js';
import { parseFieldCreate, type FieldInput } from './field-input.js';
import {
  defined,
  Name,
  ObjectOf,
  ObjectSteps,
  OptionalArray,
  OptionalBoolean,
  OptionalInteger,
  OptionalOneOf,
  OptionalString,
  type Body,
} from './input-checks.js';
import type { CollectionMeta } from '../../schema/types.js';

export type CollectionMetaInput = Partial<Omit<CollectionMeta, 'collection'>>;

export interface CollectionInput {
  collection: string;
  meta?: CollectionMetaInput | null;
  /** null: a folder (no table); undefined: not given. */
  schema?: Body | null;
  fields?: FieldInput[];
}

// Archive values are stored as text; numbers and booleans are accepted as their text.
const ArchiveValue = Type.Optional(
  Type.Unsafe<string | number | boolean | null>({
    type: ['string', 'number', 'boolean', 'null'],
    errorMessage: '"{path}" must be a string',
  }),
);

const Meta = Type.Object({
  icon: OptionalString(),
  note: OptionalString(),
  display_template: OptionalString(),
  hidden: OptionalBoolean(),
  singleton: OptionalBoolean(),
  translations: OptionalArray(),
  archive_field: OptionalString(),
  archive_app_filter: OptionalBoolean(),
  archive_value: ArchiveValue,
  unarchive_value: ArchiveValue,
  sort_field: OptionalString(),
  accountability: OptionalOneOf(['all', 'activity'] as const),
  color: OptionalString(),
  item_duplication_fields: OptionalArray(),
  sort: OptionalInteger(-2147483648, 2147483647),
  group: OptionalString(),
  collapse: OptionalOneOf(['open', 'closed', 'locked'] as const),
  preview_url: OptionalString(),
  versioning: OptionalBoolean(),
});
type MetaBody = Static<typeof Meta> & Body;

const OptionalMeta = Type.Object({ meta: Type.Optional(Nullable(Meta)) });

/** Fields are checked one by one as field bodies (their messages name keys from the field, as Directus's do). */
export const CollectionCreateBody = compileSchema(
  ObjectSteps('Payload', [
    Type.Object({ collection: Name('Collection', '"collection" is required') }),
    OptionalMeta,
    Type.Object({ schema: Type.Optional(Nullable(Type.Object({}))) }),
    Type.Object({ fields: Type.Optional(Nullable(Type.Array(Type.Unknown()))) }),
  ]),
);

/** POST /collections: one collection, or an array of them (each checked as CollectionCreateBody). */
export const CollectionCreateManyBody = Type.Union([CollectionCreateBody, Type.Array(CollectionCreateBody)]);

export const CollectionUpdateBody = compileSchema(ObjectSteps('Payload', [OptionalMeta]));

/** One element of PATCH /collections (array), or the change of `{keys, data}`. */
export const CollectionBatchItem = compileSchema(
  ObjectSteps('Each collection', [
    Type.Object({ collection: Type.String({ errorMessage: '"collection" is required' }) }),
    OptionalMeta,
  ]),
);

const SUBMITTED = 'Submitted body has to be an array, or an object with "keys" and "data"';

/** Directus's `{keys, data: {meta}}`: one change for several collections. */
export const CollectionKeysAndData = compileSchema(
  ObjectSteps('Payload', [
    Type.Object({
      keys: Type.Array(Type.String({ errorMessage: SUBMITTED }), { errorMessage: SUBMITTED }),
      data: Type.Unknown({ errorMessage: SUBMITTED }),
    }),
    Type.Object({ data: ObjectOf('"data"') }),
  ]),
);

/** PATCH /collections: each element is checked as a CollectionBatchItem, or the object as CollectionKeysAndData. */
export const CollectionBatchBody = Type.Union([Type.Array(CollectionBatchItem), CollectionKeysAndData]);

/** The prefix of Strata's own tables: user collections may not take it. */
export const SYSTEM_PREFIX = 'service_';

export function parseCollectionCreate(body: unknown): CollectionInput {
  const object = checkBody(CollectionCreateBody, body);
  const { collection } = object;
  if (collection.toLowerCase().startsWith(SYSTEM_PREFIX))
    throw new InvalidPayloadError(`Collections can't start with "${SYSTEM_PREFIX}"`);
  const input: CollectionInput = { collection };
  if (object.meta !== undefined)
    input.meta = object.meta === null ? null : parseCollectionMeta(object.meta, collection);
  if (object.schema !== undefined) input.schema = object.schema;
  if (object.fields !== undefined && object.fields !== null) {
    const fields = object.fields.map((field) => parseFieldCreate(field, collection));
    const names = new Set<string>();
    for (const field of fields) {
      if (names.has(field.field)) throw new InvalidPayloadError(`Field "${field.field}" is given twice`);
      names.add(field.field);
    }
    input.fields = fields;
  }
  return input;
}

/** PATCH /collections/{c}: only `meta` changes (Directus docs: Collections); the rest of a collection object is ignored. */
export function parseCollectionUpdate(body: unknown, collection: string): CollectionMetaInput | null | undefined {
  const object = checkBody(CollectionUpdateBody, body) as { meta?: MetaBody | null } & Body;
  if (object.collection !== undefined && object.collection !== collection) {
    throw new InvalidPayloadError(`Collection "${collection}" can't be renamed`);
  }
  if (object.meta === undefined || object.meta === null) return object.meta;
  return parseCollectionMeta(object.meta, collection);
}

/** One `{collection, meta}` of PATCH /collections: the collection and its meta change, if any. */
export function parseCollectionBatchItem(body: unknown): [string, CollectionMetaInput | undefined] {
  const object = checkBody(CollectionBatchItem, body);
  return [
    object.collection,
    object.meta === undefined || object.meta === null ? undefined : parseCollectionMeta(object.meta, object.collection),
  ];
}

/** `{keys, data}` as the array of `{collection, meta}` items it stands for. */
export function parseCollectionKeysAndData(body: unknown): Body[] {
  const { keys, data } = checkBody(CollectionKeysAndData, body) as { keys: string[]; data: Body };
  return keys.map((collection) => ({ ...data, collection }));
}

function parseCollectionMeta(meta: MetaBody, collection: string): CollectionMetaInput {
  if (meta.collection !== undefined && meta.collection !== null && meta.collection !== collection)
    throw new InvalidPayloadError(`"meta.collection" must be "${collection}"`);
  const bool = (value: boolean | null | undefined, fallback: boolean) => (value === null ? fallback : value);
  const text = (value: string | number | boolean | null | undefined) =>
    value === undefined || value === null ? value : String(value);
  return defined<CollectionMetaInput>({
    icon: meta.icon,
    note: meta.note,
    display_template: meta.display_template,
    hidden: bool(meta.hidden, false),
    singleton: bool(meta.singleton, false),
    translations: meta.translations,
    archive_field: meta.archive_field,
    archive_app_filter: bool(meta.archive_app_filter, true),
    archive_value: text(meta.archive_value),
    unarchive_value: text(meta.unarchive_value),
    sort_field: meta.sort_field,
    accountability: meta.accountability,
    color: meta.color,
    item_duplication_fields: meta.item_duplication_fields,
    sort: meta.sort,
    group: meta.group,
    collapse: meta.collapse ?? undefined,
    preview_url: meta.preview_url,
    versioning: bool(meta.versioning, false),
  } as CollectionMetaInput);
}
