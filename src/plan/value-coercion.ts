/**
 * Filter values and keys → the logical value for a field's type: numbers for integer/float, digit strings for
 * bigInteger/decimal (exact), booleans, and canonical strings for dates (`YYYY-MM-DD`, `YYYY-MM-DDTHH:mm:ss`,
 * UTC `YYYY-MM-DDTHH:mm:ss.sssZ`, `HH:mm:ss`). Invalid input throws InvalidQueryError naming the field.
 */
import { InvalidQueryError } from '../errors/catalogue.js';
import type { FieldOverview } from '../schema/types.js';

const INTEGER = /^[-+]?\d+$/;
const INT32 = [-2_147_483_648, 2_147_483_647] as const;
const INT64 = [-(2n ** 63n), 2n ** 63n - 1n] as const;
const DECIMAL = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;
const TIME = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?$/;

function fail(field: FieldOverview, value: unknown, what: string): never {
  throw new InvalidQueryError(`Invalid ${what} value ${JSON.stringify(value)} for field "${field.field}"`);
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

function validDate(y: number, m: number, d: number): boolean {
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/** The logical value of `value` for `field`, or throws INVALID_QUERY. `Date` values come from $NOW. */
export function coerceValue(field: FieldOverview, value: unknown): unknown {
  if (value === null) return null;
  switch (field.type) {
    case 'integer':
    case 'float': {
      const n =
        typeof value === 'number'
          ? value
          : typeof value === 'string' && DECIMAL.test(value.trim())
            ? Number(value)
            : NaN;
      if (!Number.isFinite(n)) fail(field, value, 'numeric');
      // An integer field holds 32-bit values (PostgreSQL refuses a larger parameter for such a column).
      if (field.type === 'integer' && (n < INT32[0] || n > INT32[1])) fail(field, value, 'integer (out of range)');
      return n;
    }
    case 'bigInteger': {
      const text =
        typeof value === 'number' && Number.isInteger(value)
          ? String(value)
          : typeof value === 'string'
            ? value.trim()
            : '';
      if (!INTEGER.test(text)) fail(field, value, 'integer');
      const digits = text.replace(/^\+/, '');
      if (BigInt(digits) < INT64[0] || BigInt(digits) > INT64[1]) fail(field, value, 'integer (out of range)');
      return digits;
    }
    case 'decimal': {
      const text =
        typeof value === 'number' && Number.isFinite(value)
          ? String(value)
          : typeof value === 'string'
            ? value.trim()
            : '';
      if (!DECIMAL.test(text)) fail(field, value, 'decimal');
      return text;
    }
    case 'boolean':
      if (value === true || value === 1 || value === '1' || value === 'true') return true;
      if (value === false || value === 0 || value === '0' || value === 'false') return false;
      return fail(field, value, 'boolean');
    case 'date':
      return toDate(field, value);
    case 'dateTime':
      return toDateTime(field, value);
    case 'timestamp':
      return toTimestamp(field, value);
    case 'time':
      return toTime(field, value);
    case 'uuid':
      // Keys are written lower case; a malformed value would be a database error on typed uuid columns.
      if (typeof value !== 'string' || !UUID.test(value.trim())) fail(field, value, 'uuid');
      return value.trim().toLowerCase();
    default:
      if (value instanceof Date) return value.toISOString();
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
        return typeof value === 'string' ? value : String(value);
      return fail(field, value, 'text');
  }
}

function parseDateTime(field: FieldOverview, value: unknown): { parts: RegExpExecArray } {
  if (typeof value !== 'string') fail(field, value, 'date');
  const parts = DATE_TIME.exec(value.trim());
  if (!parts || !validDate(Number(parts[1]), Number(parts[2]), Number(parts[3]))) fail(field, value, 'date');
  const [h, mi, s] = [Number(parts[4] ?? 0), Number(parts[5] ?? 0), Number(parts[6] ?? 0)];
  if (h > 23 || mi > 59 || s > 59) fail(field, value, 'date');
  return { parts };
}

function toDate(field: FieldOverview, value: unknown): string {
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (typeof value === 'string' && DATE.test(value.trim())) {
    const [, y, m, d] = DATE.exec(value.trim())!;
    if (validDate(Number(y), Number(m), Number(d))) return value.trim();
  }
  const { parts } = parseDateTime(field, value);
  return `${parts[1]}-${parts[2]}-${parts[3]}`;
}

function toDateTime(field: FieldOverview, value: unknown): string {
  if (value instanceof Date) return value.toISOString().slice(0, 19);
  const { parts } = parseDateTime(field, value);
  return `${parts[1]}-${parts[2]}-${parts[3]}T${pad(Number(parts[4] ?? 0))}:${pad(Number(parts[5] ?? 0))}:${pad(Number(parts[6] ?? 0))}`;
}

function toTimestamp(field: FieldOverview, value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  const { parts } = parseDateTime(field, value);
  const ms = Number(((parts[7] ?? '') + '000').slice(0, 3));
  let time = Date.UTC(
    Number(parts[1]),
    Number(parts[2]) - 1,
    Number(parts[3]),
    Number(parts[4] ?? 0),
    Number(parts[5] ?? 0),
    Number(parts[6] ?? 0),
    ms,
  );
  const zone = parts[8];
  if (zone && zone.toUpperCase() !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    time -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4))) * 60_000;
  }
  return new Date(time).toISOString();
}

function toTime(field: FieldOverview, value: unknown): string {
  if (value instanceof Date) return value.toISOString().slice(11, 19);
  if (typeof value !== 'string') fail(field, value, 'time');
  const parts = TIME.exec(value.trim());
  if (!parts || Number(parts[1]) > 23 || Number(parts[2]) > 59 || Number(parts[3] ?? 0) > 59)
    fail(field, value, 'time');
  return `${parts[1]}:${parts[2]}:${pad(Number(parts[3] ?? 0))}`;
}

/** A primary key from a URL or body, or null when it cannot be a key of that type (the caller answers FORBIDDEN). */
export function coerceKey(field: FieldOverview, key: unknown): string | number | null {
  const text = typeof key === 'number' ? String(key) : typeof key === 'string' ? key : null;
  // NUL cannot be in a key on PostgreSQL: no key holds it, on every database alike.
  if (text === null || text === '' || text.includes('\u0000')) return null;
  switch (field.type) {
    case 'integer': {
      if (!INTEGER.test(text)) return null;
      const n = Number(text);
      return n >= INT32[0] && n <= INT32[1] ? n : null;
    }
    case 'bigInteger': {
      if (!INTEGER.test(text)) return null;
      const digits = text.replace(/^\+/, '');
      return BigInt(digits) >= INT64[0] && BigInt(digits) <= INT64[1] ? digits : null;
    }
    case 'uuid':
      return UUID.test(text) ? text.toLowerCase() : null;
    case 'float':
    case 'decimal':
      return DECIMAL.test(text) ? text : null;
    default:
      return text;
  }
}

export function isUuid(text: string): boolean {
  return UUID.test(text);
}
