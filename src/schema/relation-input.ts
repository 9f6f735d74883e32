/**
 * Bodies of POST /relations and PATCH /relations/{c}/{f} (Directus docs: Relations) → checked input. Pure.
 */
import { InvalidPayloadError } from '../errors/catalogue.js';
import { defined, optionalOneOf, optionalString, optionalStringList, requireObject, validName } from './input-checks.js';

export interface RelationMetaInput {
  one_field?: string | null;
  one_collection_field?: string | null;
  one_allowed_collections?: string[] | null;
  junction_field?: string | null;
  sort_field?: string | null;
  one_deselect_action?: 'nullify' | 'delete';
}

export interface RelationSchemaInput {
  on_delete?: string | null;
  on_update?: string | null;
}

export interface RelationInput {
  collection: string;
  field: string;
  related_collection?: string | null;
  /** null: no foreign key; undefined: not given. */
  schema?: RelationSchemaInput | null;
  meta?: RelationMetaInput | null;
}

const ACTIONS = ['NO ACTION', 'RESTRICT', 'CASCADE', 'SET NULL', 'SET DEFAULT'] as const;

export function parseRelationCreate(body: unknown): RelationInput {
  const object = requireObject(body, 'Payload');
  if (object.collection === undefined) throw new InvalidPayloadError(`"collection" is required`);
  if (object.field === undefined) throw new InvalidPayloadError(`"field" is required`);
  const input: RelationInput = { collection: validName(object.collection, 'Collection'), field: validName(object.field, 'Field') };
  if (object.related_collection !== undefined && object.related_collection !== null) {
    input.related_collection = validName(object.related_collection, 'Collection');
  } else if (object.related_collection === null) {
    input.related_collection = null;
  }
  readParts(object, input);
  return input;
}

export function parseRelationUpdate(body: unknown, collection: string, field: string): RelationInput {
  const object = requireObject(body, 'Payload');
  if (object.collection !== undefined && object.collection !== collection) throw new InvalidPayloadError(`"collection" must be "${collection}"`);
  if (object.field !== undefined && object.field !== field) throw new InvalidPayloadError(`"field" must be "${field}"`);
  const input: RelationInput = { collection, field };
  if (object.related_collection !== undefined) input.related_collection = object.related_collection === null ? null : String(object.related_collection);
  readParts(object, input);
  return input;
}

function readParts(object: Record<string, unknown>, input: RelationInput): void {
  if (object.schema !== undefined) {
    if (object.schema === null) input.schema = null;
    else {
      const schema = requireObject(object.schema, '"schema"');
      input.schema = defined<RelationSchemaInput>({ on_delete: action(schema.on_delete, 'on_delete'), on_update: action(schema.on_update, 'on_update') });
    }
  }
  if (object.meta !== undefined) {
    if (object.meta === null) input.meta = null;
    else {
      const meta = requireObject(object.meta, '"meta"');
      const p = 'meta.';
      input.meta = defined<RelationMetaInput>({
        one_field: optionalString(meta, 'one_field', p),
        one_collection_field: optionalString(meta, 'one_collection_field', p),
        one_allowed_collections: optionalStringList(meta, 'one_allowed_collections', p),
        junction_field: optionalString(meta, 'junction_field', p),
        sort_field: optionalString(meta, 'sort_field', p),
        one_deselect_action: optionalOneOf(meta, 'one_deselect_action', p, ['nullify', 'delete'] as const, true) ?? undefined,
      });
    }
  }
}

function action(value: unknown, key: string): string | null | undefined {
  if (value === undefined || value === null) return value as null | undefined;
  const upper = typeof value === 'string' ? value.toUpperCase() : '';
  if (!(ACTIONS as readonly string[]).includes(upper)) throw new InvalidPayloadError(`"schema.${key}" must be one of ${ACTIONS.join(', ')}`);
  return upper;
}
