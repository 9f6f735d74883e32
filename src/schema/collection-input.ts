/**
 * Bodies of POST /collections and PATCH /collections[/{c}] (Directus docs: Collections) → checked input. Pure.
 */
import { InvalidPayloadError } from '../errors/catalogue.js';
import { parseFieldCreate, type FieldInput } from './field-input.js';
import {
  defined,
  optionalArray,
  optionalBoolean,
  optionalInteger,
  optionalOneOf,
  optionalString,
  requireObject,
  validName,
  type Body,
} from './input-checks.js';
import type { CollectionMeta } from './types.js';

export type CollectionMetaInput = Partial<Omit<CollectionMeta, 'collection'>>;

export interface CollectionInput {
  collection: string;
  meta?: CollectionMetaInput | null;
  /** null: a folder (no table); undefined: not given. */
  schema?: Body | null;
  fields?: FieldInput[];
}


/** The prefix of Strata's own tables: user collections may not take it. */
export const SYSTEM_PREFIX = 'service_';

export function parseCollectionCreate(body: unknown): CollectionInput {
  const object = requireObject(body, 'Payload');
  if (object.collection === undefined) throw new InvalidPayloadError(`"collection" is required`);
  const collection = validName(object.collection, 'Collection');
  if (collection.toLowerCase().startsWith(SYSTEM_PREFIX)) throw new InvalidPayloadError(`Collections can't start with "${SYSTEM_PREFIX}"`);
  const input: CollectionInput = { collection };
  if (object.meta !== undefined) input.meta = object.meta === null ? null : parseCollectionMeta(requireObject(object.meta, '"meta"'), collection);
  if (object.schema !== undefined) {
    input.schema = object.schema === null ? null : requireObject(object.schema, '"schema"');
  }
  if (object.fields !== undefined && object.fields !== null) {
    if (!Array.isArray(object.fields)) throw new InvalidPayloadError(`"fields" must be an array`);
    input.fields = object.fields.map((field) => parseFieldCreate(field, collection));
    const names = new Set<string>();
    for (const field of input.fields) {
      if (names.has(field.field)) throw new InvalidPayloadError(`Field "${field.field}" is given twice`);
      names.add(field.field);
    }
  }
  return input;
}

/** PATCH /collections/{c}: only `meta` changes (Directus docs: Collections); the rest of a collection object is ignored. */
export function parseCollectionUpdate(body: unknown, collection: string): CollectionMetaInput | null | undefined {
  const object = requireObject(body, 'Payload');
  if (object.collection !== undefined && object.collection !== collection) {
    throw new InvalidPayloadError(`Collection "${collection}" can't be renamed`);
  }
  if (object.meta === undefined || object.meta === null) return object.meta as null | undefined;
  return parseCollectionMeta(requireObject(object.meta, '"meta"'), collection);
}

export function parseCollectionMeta(meta: Body, collection: string): CollectionMetaInput {
  if (meta.collection !== undefined && meta.collection !== null && meta.collection !== collection) throw new InvalidPayloadError(`"meta.collection" must be "${collection}"`);
  const p = 'meta.';
  const bool = (key: string, fallback: boolean) => {
    const value = optionalBoolean(meta, key, p, true);
    return value === null ? fallback : (value as boolean | undefined);
  };
  return defined<CollectionMetaInput>({
    icon: optionalString(meta, 'icon', p),
    note: optionalString(meta, 'note', p),
    display_template: optionalString(meta, 'display_template', p),
    hidden: bool('hidden', false),
    singleton: bool('singleton', false),
    translations: optionalArray(meta, 'translations', p),
    archive_field: optionalString(meta, 'archive_field', p),
    archive_app_filter: bool('archive_app_filter', true),
    archive_value: scalarText(meta, 'archive_value'),
    unarchive_value: scalarText(meta, 'unarchive_value'),
    sort_field: optionalString(meta, 'sort_field', p),
    accountability: optionalOneOf(meta, 'accountability', p, ['all', 'activity'] as const, true),
    color: optionalString(meta, 'color', p),
    item_duplication_fields: optionalArray(meta, 'item_duplication_fields', p),
    sort: optionalInteger(meta, 'sort', p, -2147483648, 2147483647),
    group: optionalString(meta, 'group', p),
    collapse: (optionalOneOf(meta, 'collapse', p, ['open', 'closed', 'locked'] as const, true) ?? undefined) as string | undefined,
    preview_url: optionalString(meta, 'preview_url', p),
    versioning: bool('versioning', false),
  });
}

/** Archive values are stored as text; numbers and booleans are accepted as their text. */
function scalarText(meta: Body, key: string): string | null | undefined {
  const value = meta[key];
  if (value === undefined || value === null) return value as null | undefined;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new InvalidPayloadError(`"meta.${key}" must be a string`);
}
