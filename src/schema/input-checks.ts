/**
 * Small checks shared by the schema-management request bodies (fields, collections, relations). Each failure is an
 * INVALID_PAYLOAD that names the offending key.
 */
import { InvalidPayloadError } from '../errors/catalogue.js';

export type Body = Record<string, unknown>;

/** Longest name PostgreSQL keeps (63 bytes); MySQL allows 64 characters. */
const MAX_NAME_BYTES = 63;
const NAME = /^[A-Za-z0-9_][A-Za-z0-9_-]*$/;

export function isObject(value: unknown): value is Body {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function requireObject(value: unknown, what: string): Body {
  if (!isObject(value)) throw new InvalidPayloadError(`${what} must be an object`);
  return value;
}


/**
 * A collection or field name: letters, digits, `_` and `-` (not first), at most 63 bytes. Dots, colons and commas
 * would clash with field paths, m2a scopes and CSV lists; quotes and spaces with nothing, but they help no one.
 */
export function validName(value: unknown, what: 'Collection' | 'Field'): string {
  if (typeof value !== 'string' || value.length === 0) throw new InvalidPayloadError(`${what} name is required`);
  if (!NAME.test(value) || Buffer.byteLength(value) > MAX_NAME_BYTES) {
    throw new InvalidPayloadError(`${what} name "${value}" is invalid: use letters, digits, "_" and "-", at most ${MAX_NAME_BYTES} characters`);
  }
  return value;
}

export function optionalString(body: Body, key: string, prefix: string): string | null | undefined {
  const value = body[key];
  if (value === undefined || value === null) return value as null | undefined;
  if (typeof value !== 'string') throw new InvalidPayloadError(`"${prefix}${key}" must be a string`);
  return value;
}

export function optionalBoolean(body: Body, key: string, prefix: string, nullable = false): boolean | null | undefined {
  const value = body[key];
  if (value === undefined || (nullable && value === null)) return value as null | undefined;
  if (typeof value !== 'boolean') throw new InvalidPayloadError(`"${prefix}${key}" must be a boolean`);
  return value;
}

export function optionalInteger(body: Body, key: string, prefix: string, min: number, max: number): number | null | undefined {
  const value = body[key];
  if (value === undefined || value === null) return value as null | undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new InvalidPayloadError(`"${prefix}${key}" must be an integer from ${min} to ${max}`);
  }
  return value;
}

export function optionalJsonObject(body: Body, key: string, prefix: string): Body | null | undefined {
  const value = body[key];
  if (value === undefined || value === null) return value as null | undefined;
  if (!isObject(value)) throw new InvalidPayloadError(`"${prefix}${key}" must be an object`);
  return value;
}

export function optionalArray(body: Body, key: string, prefix: string): unknown[] | null | undefined {
  const value = body[key];
  if (value === undefined || value === null) return value as null | undefined;
  if (!Array.isArray(value)) throw new InvalidPayloadError(`"${prefix}${key}" must be an array`);
  return value;
}

export function optionalOneOf<T extends string>(body: Body, key: string, prefix: string, values: readonly T[], nullable: boolean): T | null | undefined {
  const value = body[key];
  if (value === undefined || (nullable && value === null)) return value as null | undefined;
  if (typeof value !== 'string' || !values.includes(value as T)) {
    throw new InvalidPayloadError(`"${prefix}${key}" must be one of ${values.join(', ')}${nullable ? ' or null' : ''}`);
  }
  return value as T;
}

/** A list of strings sent as an array or as CSV text. */
export function optionalStringList(body: Body, key: string, prefix: string): string[] | null | undefined {
  const value = body[key];
  if (value === undefined || value === null) return value as null | undefined;
  if (typeof value === 'string') return value.split(',').map((s) => s.trim()).filter(Boolean);
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw new InvalidPayloadError(`"${prefix}${key}" must be an array of strings`);
  return value as string[];
}

/** Copies the keys of `from` that are not undefined. */
export function defined<T extends object>(from: T): Partial<T> {
  return Object.fromEntries(Object.entries(from).filter(([, v]) => v !== undefined)) as Partial<T>;
}
