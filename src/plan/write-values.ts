/**
 * Payload values → the logical value of a column write (what the dialect's write hooks bind): numbers for integer
 * and float, exact digit strings for bigInteger and decimal, booleans, canonical date strings (as reads give them),
 * JSON text for json, comma-joined text for csv. A value the column cannot hold is a WriteValueProblem naming the
 * field, never a database error.
 */
import {
  InvalidPayloadError,
  ValueOutOfRangeError,
  ValueTooLongError,
  type ServiceError,
} from '../errors/catalogue.js';
import type { CollectionOverview, FieldOverview } from '../schema/types.js';
import { fitDecimal } from './decimal-text.js';
import { coerceValue } from './value-coercion.js';

const INTEGER = /^[-+]?\d+$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Thrown (and caught by the planner, which lists it with the row's other failures) for a value of the wrong type. */
export class WriteValueProblem extends Error {
  constructor(readonly error: ServiceError) {
    super(error.message);
  }
}

function wrongType(
  collection: CollectionOverview,
  field: FieldOverview,
  path: (string | number)[],
  reason: string,
): WriteValueProblem {
  return new WriteValueProblem(
    new InvalidPayloadError(reason, { collection: collection.collection, field: field.field, path }),
  );
}

const DATE_LABEL: Record<string, string> = { date: 'Date', dateTime: 'DateTime', timestamp: 'Timestamp', time: 'Time' };

/** The logical value to write for `value` (not undefined), or throws WriteValueProblem. */
export function writeValue(
  collection: CollectionOverview,
  field: FieldOverview,
  value: unknown,
  path: (string | number)[],
): unknown {
  if (value === null) return null;
  // (No closure here: this runs for every value of every row of a batch.)
  switch (field.type) {
    case 'integer': {
      const n =
        typeof value === 'number'
          ? value
          : typeof value === 'string' && INTEGER.test(value.trim())
            ? Number(value)
            : NaN;
      if (!Number.isInteger(n))
        throw wrongType(collection, field, path, `Value for field "${field.field}" has to be an integer`);
      if (!Number.isSafeInteger(n))
        throw new WriteValueProblem(new ValueOutOfRangeError(collection.collection, field.field));
      return n;
    }
    case 'bigInteger': {
      const text =
        typeof value === 'number' && Number.isInteger(value)
          ? String(value)
          : typeof value === 'string'
            ? value.trim()
            : '';
      if (!INTEGER.test(text))
        throw wrongType(collection, field, path, `Value for field "${field.field}" has to be an integer`);
      const big = BigInt(text);
      if (big < INT64_MIN || big > INT64_MAX)
        throw new WriteValueProblem(new ValueOutOfRangeError(collection.collection, field.field));
      return big.toString();
    }
    case 'float':
    case 'decimal': {
      let logical: unknown;
      try {
        logical = coerceValue(field, value);
      } catch {
        throw wrongType(collection, field, path, `Value for field "${field.field}" has to be a number`);
      }
      return field.type === 'decimal' ? decimalValue(collection, field, String(logical)) : logical;
    }
    case 'boolean':
      try {
        return coerceValue(field, value);
      } catch {
        throw wrongType(collection, field, path, `Value for field "${field.field}" has to be a boolean`);
      }
    case 'date':
    case 'dateTime':
    case 'timestamp':
    case 'time':
      try {
        return coerceValue(field, value);
      } catch {
        throw wrongType(collection, field, path, `Invalid ${DATE_LABEL[field.type]} format in field "${field.field}"`);
      }
    case 'uuid':
      try {
        return coerceValue(field, value);
      } catch {
        throw wrongType(collection, field, path, `Value for field "${field.field}" has to be a UUID`);
      }
    case 'json':
      // What is written reads back the same: a string is stored as a JSON string, not parsed.
      return JSON.stringify(value);
    case 'csv':
      if (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number'))
        return value.join(',');
      if (typeof value === 'string') return value;
      throw wrongType(collection, field, path, `Value for field "${field.field}" has to be an array of strings`);
    case 'hash':
      if (typeof value !== 'string')
        throw wrongType(collection, field, path, `Value for field "${field.field}" has to be a string`);
      return value;
    default: {
      const text =
        typeof value === 'string'
          ? value
          : typeof value === 'number' || typeof value === 'boolean'
            ? String(value)
            : null;
      if (text === null)
        throw wrongType(collection, field, path, `Value for field "${field.field}" has to be a string`);
      const allowed = field.schema?.enum_values;
      if (allowed) checkEnum(collection, field, path, text, allowed);
      return text;
    }
  }
}

/** An enumerated column's value (a set's: a comma list of its values) must be one it allows, checked before SQL. */
function checkEnum(
  collection: CollectionOverview,
  field: FieldOverview,
  path: (string | number)[],
  text: string,
  allowed: { values: string[]; many: boolean },
): void {
  const given = allowed.many ? (text === '' ? [] : text.split(',')) : [text];
  if (given.every((value) => allowed.values.includes(value))) return;
  const list = allowed.values.map((v) => `"${v}"`).join(', ');
  throw wrongType(
    collection,
    field,
    path,
    `Value for field "${field.field}" has to be ${allowed.many ? 'a comma list of' : 'one of'} ${list}`,
  );
}

/**
 * A decimal as its column holds it: rounded at the scale and within the precision (decimal-text.ts), as every
 * database stores it, or VALUE_OUT_OF_RANGE. A column without a declared precision (SQLite's bare `numeric`) still
 * refuses what no database number holds (SQLite would store Inf).
 */
function decimalValue(collection: CollectionOverview, field: FieldOverview, text: string): string {
  const precision = field.schema?.numeric_precision;
  const scale = field.schema?.numeric_scale;
  const fitted =
    precision === null || precision === undefined
      ? Number.isFinite(Number(text))
        ? text
        : null
      : fitDecimal(text, precision, scale ?? 0);
  if (fitted === null) throw new WriteValueProblem(new ValueOutOfRangeError(collection.collection, field.field));
  return fitted;
}

/** Strings longer than the column's `max_length` (in characters) fail on every database, SQLite included. */
export function lengthProblem(
  collection: CollectionOverview,
  field: FieldOverview,
  value: unknown,
): ServiceError | null {
  const max = field.schema?.max_length;
  if (max === null || max === undefined || typeof value !== 'string' || value.length <= max) return null;
  // value.length counts UTF-16 units; the databases count characters.
  let count = 0;
  for (const _ of value) if (++count > max) return new ValueTooLongError(collection.collection, field.field);
  return null;
}
