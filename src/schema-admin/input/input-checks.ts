/**
 * Schema parts shared by the schema-management request bodies (fields, collections, relations): TypeBox schemas
 * checked by request/body-check.ts. Each failure is an INVALID_PAYLOAD that names the offending key
 * (`"meta.sort" must be an integer from ...`). Keys not listed are ignored, as Directus ignores them.
 */
import { Type, type TProperties, type TSchema } from '@sinclair/typebox';
import { Nullable, OneOf } from '../../request/body-check.js';
import { PROTOTYPE_KEYS } from '../../request/prototype-keys.js';

export type Body = Record<string, unknown>;

/** Longest name PostgreSQL keeps (63 bytes); MySQL allows 64 characters. The pattern is ASCII: bytes = characters. */
const MAX_NAME_BYTES = 63;

/**
 * A collection or field name: letters, digits, `_` and `-` (not first), at most 63 bytes. Dots, colons and commas
 * would clash with field paths, m2a scopes and CSV lists; quotes and spaces with nothing, but they help no one.
 */
export function Name(what: 'Collection' | 'Field', required = `${what} name is required`) {
  const invalid = `${what} name "{value}" is invalid: use letters, digits, "_" and "-", at most ${MAX_NAME_BYTES} characters`;
  return Type.String({
    minLength: 1,
    maxLength: MAX_NAME_BYTES,
    pattern: '^[A-Za-z0-9_][A-Za-z0-9_-]*$',
    // Names become keys and path segments everywhere (payloads, filters, CSV headers, snapshots): never these.
    not: { enum: [...PROTOTYPE_KEYS] },
    errorMessage: {
      not: `${what} name "{value}" is reserved: __proto__, constructor and prototype can't name a ${what.toLowerCase()}`,
      required,
      type: `${what} name is required`,
      minLength: `${what} name is required`,
      maxLength: invalid,
      pattern: invalid,
    },
  });
}

/** An object body (`what` names it in the message: `Payload`, `Each field`) with these keys. */
export const ObjectOf = (what: string, properties: TProperties = {}) =>
  Type.Object(properties, { errorMessage: { type: `${what} must be an object` } });

/** An object body checked in steps, in order: the first step that fails is the one reported. */
export const ObjectSteps = <T extends TSchema[]>(what: string, steps: [...T]) =>
  Type.Intersect(steps, { errorMessage: { type: `${what} must be an object` } });

/** `key: {...}` or `key: null`, or not given. */
export const OptionalObject = (properties: TProperties = {}) => Type.Optional(Nullable(Type.Object(properties)));

export const OptionalString = () => Type.Optional(Nullable(Type.String()));

export const OptionalBoolean = () => Type.Optional(Nullable(Type.Boolean()));

/** A boolean or not given (null is refused). */
export const OptionalFlag = () => Type.Optional(Type.Boolean());

export const OptionalInteger = (min: number, max: number) =>
  Type.Optional(
    Nullable(Type.Integer({ minimum: min, maximum: max }), {
      errorMessage: `"{path}" must be an integer from ${min} to ${max}`,
    }),
  );

export const OptionalArray = () => Type.Optional(Nullable(Type.Array(Type.Unknown())));

export const OptionalOneOf = <const V extends readonly string[]>(values: V) =>
  Type.Optional(
    OneOf(values, { nullable: true, errorMessage: `"{path}" must be one of ${values.join(', ')} or null` }),
  );

/** A list of strings sent as an array or as CSV text. */
export const OptionalStringList = () =>
  Type.Optional(
    Type.Unsafe<string | string[] | null>({
      type: ['string', 'array', 'null'],
      // Not `items`: a bad element is reported as the list, not as the element.
      not: { type: 'array', contains: { not: { type: 'string' } } },
      errorMessage: '"{path}" must be an array of strings',
    }),
  );

/** The list a checked OptionalStringList holds. */
export function stringList(value: string | string[] | null | undefined): string[] | null | undefined {
  return typeof value === 'string'
    ? value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : value;
}

/** Copies the keys of `from` that are not undefined. */
export function defined<T extends object>(from: T): Partial<T> {
  return Object.fromEntries(Object.entries(from).filter(([, v]) => v !== undefined)) as Partial<T>;
}
