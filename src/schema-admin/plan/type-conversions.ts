/**
 * Which column type changes Strata makes, and what must hold of the existing values first. The same on every
 * database: each dialect turns a check into a count of the rows it would not keep (SchemaDdl.lossyCount), and a
 * change runs only when that count is zero. Pairs that are not listed are refused outright: their result would
 * differ between databases or lose meaning (booleans or dates turned into text, time zones added or dropped).
 */
import type { ServiceType } from '../../schema/types.js';
import type { ColumnSpec, StorageType } from './column-spec.js';

export type ConversionCheck =
  /** Every value survives. */
  | 'none'
  /** The text form of every value fits the target's max_length. */
  | 'length'
  /** Numbers: integral and within the target integer type's range. */
  | 'integral'
  /** Text: an integer within the target integer type's range. */
  | 'integer-text'
  /** Numbers: no more decimals than the target scale, and within its precision. */
  | 'decimal-fit'
  /** Text: a number that fits the target precision and scale. */
  | 'decimal-text'
  /** Integers a double holds exactly (|v| ≤ 2^53). */
  | 'float-exact'
  /** Text: a number. */
  | 'float-text'
  /** Numbers: 0 or 1. */
  | 'boolean-int'
  | 'uuid-text'
  | 'json-text'
  | 'date-text'
  | 'datetime-text'
  | 'time-text'
  /** Date-times whose time of day is 00:00:00. */
  | 'midnight';

/** The storage of an existing field's column, as the conversion table sees it; null = not convertible. */
export function storageOfField(type: ServiceType, maxLength: number | null): StorageType | null {
  switch (type) {
    case 'csv':
    case 'hash':
      return maxLength === null ? 'text' : 'string';
    case 'alias':
    case 'geometry':
    case 'unknown':
      return null;
    default:
      return type;
  }
}

const NUMBER: ReadonlySet<StorageType> = new Set(['integer', 'bigInteger', 'float', 'decimal']);
const TEXTUAL: ReadonlySet<StorageType> = new Set(['string', 'text']);

/**
 * The check a change from `from` (with its current max_length / precision / scale) to `to` needs, or null when
 * Strata refuses that change whatever the data.
 */
export function conversionCheck(
  from: StorageType,
  current: { max_length: number | null; numeric_precision: number | null; numeric_scale: number | null },
  to: ColumnSpec,
): ConversionCheck | null {
  const textual = TEXTUAL.has(from);
  switch (to.type) {
    case 'string':
      if (
        from === 'string' &&
        current.max_length !== null &&
        to.maxLength !== null &&
        current.max_length <= to.maxLength
      )
        return 'none';
      if (from === 'uuid' && (to.maxLength ?? 0) >= 36) return 'none';
      return textual || from === 'uuid' || from === 'json' || NUMBER.has(from) ? 'length' : null;
    case 'text':
      return textual || from === 'uuid' || from === 'json' || NUMBER.has(from) ? 'none' : null;
    case 'integer':
    case 'bigInteger':
      if (from === 'boolean' || from === 'integer' || (from === 'bigInteger' && to.type === 'bigInteger'))
        return 'none';
      if (NUMBER.has(from)) return 'integral';
      return textual ? 'integer-text' : null;
    case 'float':
      if (from === 'float') return 'none';
      // A double keeps 15 significant digits: wider decimals would come back changed.
      if (from === 'decimal')
        return current.numeric_precision !== null && current.numeric_precision <= 15 ? 'none' : null;
      if (from === 'integer' || from === 'bigInteger') return from === 'integer' ? 'none' : 'float-exact';
      return textual ? 'float-text' : null;
    case 'decimal':
      if (NUMBER.has(from)) return 'decimal-fit';
      return textual ? 'decimal-text' : null;
    case 'boolean':
      if (from === 'boolean') return 'none';
      return from === 'integer' || from === 'bigInteger' ? 'boolean-int' : null;
    case 'date':
      if (from === 'date') return 'none';
      if (from === 'dateTime') return 'midnight';
      return textual ? 'date-text' : null;
    case 'dateTime':
      if (from === 'dateTime' || from === 'date') return 'none';
      return textual ? 'datetime-text' : null;
    case 'timestamp':
      return from === 'timestamp' ? 'none' : null;
    case 'time':
      if (from === 'time') return 'none';
      return textual ? 'time-text' : null;
    case 'uuid':
      if (from === 'uuid') return 'none';
      return textual ? 'uuid-text' : null;
    case 'json':
      if (from === 'json') return 'none';
      return textual ? 'json-text' : null;
    case 'binary':
      return from === 'binary' ? 'none' : null;
  }
}
