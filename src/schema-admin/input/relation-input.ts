/**
 * Bodies of POST /relations and PATCH /relations/{c}/{f} (Directus docs: Relations) → checked input. Pure.
 */
import { Type, type Static } from '@sinclair/typebox';
import { InvalidPayloadError } from '../../errors/catalogue.js';
import { checkBody, compileSchema, Nullable } from '../../request/body-check.js';
import {
  defined,
  Name,
  ObjectSteps,
  OptionalOneOf,
  OptionalString,
  OptionalStringList,
  stringList,
  type Body,
} from './input-checks.js';

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

/** Any case (`cascade` is CASCADE; Node 20's regular expressions have no inline `(?i)`); anything else is refused. */
const anyCase = (text: string) => text.replace(/[A-Z]/g, (letter) => `[${letter}${letter.toLowerCase()}]`);
const Action = Type.Optional(
  Nullable(Type.String({ pattern: `^(?:${ACTIONS.map(anyCase).join('|')})$` }), {
    errorMessage: `"{path}" must be one of ${ACTIONS.join(', ')}`,
  }),
);

const Parts = [
  Type.Object({ schema: Type.Optional(Nullable(Type.Object({ on_delete: Action, on_update: Action }))) }),
  Type.Object({
    meta: Type.Optional(
      Nullable(
        Type.Object({
          one_field: OptionalString(),
          one_collection_field: OptionalString(),
          one_allowed_collections: OptionalStringList(),
          junction_field: OptionalString(),
          sort_field: OptionalString(),
          one_deselect_action: OptionalOneOf(['nullify', 'delete'] as const),
        }),
      ),
    ),
  }),
] as const;

export const RelationCreateBody = compileSchema(
  ObjectSteps('Payload', [
    Type.Object({
      collection: Name('Collection', '"collection" is required'),
      field: Name('Field', '"field" is required'),
    }),
    Type.Object({ related_collection: Type.Optional(Nullable(Name('Collection'))) }),
    ...Parts,
  ]),
);

export const RelationUpdateBody = compileSchema(ObjectSteps('Payload', [...Parts]));

type PartsBody = Static<(typeof Parts)[0]> & Static<(typeof Parts)[1]> & Body;

export function parseRelationCreate(body: unknown): RelationInput {
  const object = checkBody(RelationCreateBody, body) as PartsBody & {
    collection: string;
    field: string;
    related_collection?: string | null;
  };
  const input: RelationInput = { collection: object.collection, field: object.field };
  if (object.related_collection !== undefined) input.related_collection = object.related_collection;
  readParts(object, input);
  return input;
}

export function parseRelationUpdate(body: unknown, collection: string, field: string): RelationInput {
  const object = checkBody(RelationUpdateBody, body) as PartsBody;
  if (object.collection !== undefined && object.collection !== collection)
    throw new InvalidPayloadError(`"collection" must be "${collection}"`);
  if (object.field !== undefined && object.field !== field) throw new InvalidPayloadError(`"field" must be "${field}"`);
  const input: RelationInput = { collection, field };
  if (object.related_collection !== undefined)
    input.related_collection = object.related_collection === null ? null : String(object.related_collection);
  readParts(object, input);
  return input;
}

function readParts(object: PartsBody, input: RelationInput): void {
  const { schema, meta } = object;
  if (schema !== undefined) {
    const upper = (value: string | null | undefined) => (typeof value === 'string' ? value.toUpperCase() : value);
    input.schema =
      schema === null
        ? null
        : defined<RelationSchemaInput>({ on_delete: upper(schema.on_delete), on_update: upper(schema.on_update) });
  }
  if (meta !== undefined) {
    input.meta =
      meta === null
        ? null
        : defined<RelationMetaInput>({
            one_field: meta.one_field,
            one_collection_field: meta.one_collection_field,
            one_allowed_collections: stringList(meta.one_allowed_collections),
            junction_field: meta.junction_field,
            sort_field: meta.sort_field,
            one_deselect_action: meta.one_deselect_action ?? undefined,
          });
  }
}
