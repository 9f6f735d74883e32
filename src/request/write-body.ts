/**
 * Bodies of item writes (Directus docs: Items) → what the writer needs. Pure: item payloads stay as the client sent them
 * (the mutation planner checks them against the schema); only the batch envelopes are checked here.
 * The envelopes are TypeBox schemas (body-check.ts); failures are 400 INVALID_PAYLOAD with Directus's reasons.
 */
import { Type } from '@sinclair/typebox';
import { checkBody, compileSchema, IfArray, Present } from './body-check.js';
import { parseQuery, type QueryParseOptions } from './parse-query.js';
import type { KeyInput, Query } from './query.js';

export type Payload = Record<string, unknown>;
export type BodyKey = KeyInput;

export type UpdateBody =
  /** An array of items, each with its key. */
  | { kind: 'batch'; items: Payload[] }
  | { kind: 'keys'; keys: BodyKey[]; data: Payload }
  | { kind: 'query'; query: Query; data: Payload };

export type DeleteBody = { kind: 'keys'; keys: BodyKey[] } | { kind: 'query'; query: Query };

const REQUIRED = 'Payload in body is required';
const OBJECT = { type: '"{path}" must be of type object' };
const Item = Type.Object({}, { errorMessage: OBJECT });
const Items = Type.Array(Item);

/** Objects name the columns of a composite key; whether a key fits the collection is the planner's to say. */
const Key = (message: string) => Type.Union([Type.String(), Type.Number(), Type.Object({})], { errorMessage: message });
const KEY = 'must be a string, a number or an object of key fields';
const Keys = Type.Array(Key(`"{path}" ${KEY}`));

/** `{keys}` or `{query}`, exactly one of them (Joi's wording for both faults). */
const KeysOrQuery = [
  Type.Unsafe({
    not: { required: ['keys', 'query'] },
    errorMessage: '"value" contains a conflict between exclusive peers [keys, query]',
  }),
  Type.Unsafe({
    anyOf: [{ required: ['keys'] }, { required: ['query'] }],
    errorMessage: '"value" must contain at least one of [keys, query]',
  }),
  Type.Object({ keys: Type.Optional(Keys), query: Type.Optional(Type.Object({}, { errorMessage: OBJECT })) }),
];

/** POST: an object creates one item, an array creates many. */
const CreateBody = compileSchema(Type.Intersect([Present(REQUIRED), IfArray(Items, Item)]));

/** PATCH of one item (by key, or a singleton): a partial item. */
export const ItemBody = compileSchema(Type.Intersect([Present(REQUIRED), Item]));

/** PATCH /items/{c}: an array of items with keys, `{keys, data}` or `{query, data}`. */
const UpdateBody = compileSchema(
  Type.Intersect([
    Present(REQUIRED),
    IfArray(
      Items,
      Type.Intersect([
        Item,
        Type.Object(
          {
            keys: Type.Optional(Type.Unknown()),
            query: Type.Optional(Type.Unknown()),
            data: Type.Optional(Type.Unknown()),
          },
          { additionalProperties: false },
        ),
        Type.Object({ data: Item }),
        ...KeysOrQuery,
      ]),
    ),
  ]),
);

/** DELETE /items/{c}: an array of keys, `{keys}` or `{query}`. */
const DeleteBody = compileSchema(
  Type.Intersect([
    Present(REQUIRED),
    IfArray(
      Type.Array(Key(`"value{path}" ${KEY}`)),
      Type.Intersect([
        Item,
        Type.Object(
          { keys: Type.Optional(Type.Unknown()), query: Type.Optional(Type.Unknown()) },
          { additionalProperties: false },
        ),
        ...KeysOrQuery,
      ]),
    ),
  ]),
);

/** PATCH /users/me/track/page: the page the app shows. */
export const TrackPageBody = compileSchema(
  Type.Intersect([
    Present(REQUIRED),
    Item,
    Type.Object({ last_page: Type.String({ minLength: 1, errorMessage: '"last_page" key is required' }) }),
  ]),
);

export function parseCreateBody(body: unknown): { many: boolean; items: Payload[] } {
  const checked = checkBody(CreateBody, body) as Payload | Payload[];
  return Array.isArray(checked) ? { many: true, items: checked } : { many: false, items: [checked] };
}

export function parseItemBody(body: unknown): Payload {
  return checkBody(ItemBody, body) as Payload;
}

export function parseTrackPageBody(body: unknown): string {
  return checkBody(TrackPageBody, body).last_page;
}

export function parseUpdateBody(body: unknown, options: QueryParseOptions): UpdateBody {
  const checked = checkBody(UpdateBody, body) as Payload[] | { keys?: BodyKey[]; query?: Payload; data: Payload };
  if (Array.isArray(checked)) return { kind: 'batch', items: checked };
  const { data } = checked;
  return checked.keys !== undefined
    ? { kind: 'keys', keys: checked.keys, data }
    : { kind: 'query', query: parseQuery(checked.query!, options), data };
}

export function parseDeleteBody(body: unknown, options: QueryParseOptions): DeleteBody {
  const checked = checkBody(DeleteBody, body) as BodyKey[] | { keys?: BodyKey[]; query?: Payload };
  if (Array.isArray(checked)) return { kind: 'keys', keys: checked };
  return checked.keys !== undefined
    ? { kind: 'keys', keys: checked.keys }
    : { kind: 'query', query: parseQuery(checked.query!, options) };
}
