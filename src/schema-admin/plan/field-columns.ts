/**
 * From a field body to the column it asks for (pure): the ColumnSpec of a new field, or the alteration of an
 * existing column with exactly the attributes that change (none → no DDL at all), the conversion check a type
 * change needs, and the special flags a type implies.
 */
import { InvalidPayloadError } from '../../errors/catalogue.js';
import { sameStorage, type SchemaDdl } from '../../db/schema-ddl.js';
import {
  FUNCTION_DEFAULTS,
  type ColumnChanges,
  type ColumnDefault,
  type ColumnSpec,
  type StorageType,
} from './column-spec.js';
import { conversionCheck, storageOfField, type ConversionCheck } from './type-conversions.js';
import type { FieldInput, SchemaInput } from '../input/field-input.js';
import type { ColumnInfo, FieldOverview, ServiceType } from '../../schema/types.js';

export function storageFor(type: ServiceType): StorageType | null {
  switch (type) {
    case 'csv':
      return 'text';
    case 'hash':
      return 'string';
    case 'alias':
    case 'geometry':
    case 'unknown':
      return null;
    default:
      return type;
  }
}

/** Special flags that decide a column's service type (schema/overview-builder.ts reads them back). */
const TYPE_FLAGS: Record<string, ServiceType> = {
  'cast-csv': 'csv',
  hash: 'hash',
  uuid: 'uuid',
  'cast-json': 'json',
  'cast-boolean': 'boolean',
  'cast-timestamp': 'timestamp',
};

/**
 * The special flags a field of `type` should carry, given `flags` (as sent, or kept from before). When the flags
 * are kept from a field whose type changes (`inherited`), flags that would make it read as another type go. The
 * flag its type needs comes in (uuid only where the column type alone does not say uuid). null = no flags.
 * `csv` is the exception, as in Directus: its column is text, and only a `cast-csv` flag sent with it makes the
 * values lists; without one the field is (and reads back as) plain text, filtered as text.
 */
export function specialFor(
  type: ServiceType,
  flags: string[] | null,
  nativeUuid: boolean,
  options: { inherited?: boolean; aliasSpecial?: string } = {},
): string[] | null {
  const kept = (flags ?? []).filter((flag) => !options.inherited || !(flag in TYPE_FLAGS) || TYPE_FLAGS[flag] === type);
  const needed = type === 'hash' ? 'hash' : type === 'uuid' && !nativeUuid ? 'uuid' : options.aliasSpecial;
  if (needed && !kept.includes(needed)) kept.push(needed);
  return kept.length ? kept : flags && flags.length === 0 ? flags : null;
}

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const NOW = /^(current_timestamp|now\(\)|now)$/i;
const TODAY = /^(current_date(\(\))?|curdate\(\))$/i;
const RANDOM_UUID = /^(gen_random_uuid|uuid|uuid_generate_v4)\(\)$/i;
/** A date and time literal; the zone as `Z`, `+01:00`, `+0100` or `+01` (PostgreSQL writes `+00`). */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/;

function validDate(y: number, m: number, d: number): boolean {
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/** A default from the body, checked against the column type. */
export function parseDefault(value: unknown, spec: Pick<ColumnSpec, 'type' | 'maxLength' | 'name'>): ColumnDefault {
  if (value === undefined || value === null) return { kind: 'none' };
  const bad = (what: string) =>
    new InvalidPayloadError(`"schema.default_value" of field "${spec.name}" must be ${what}`);
  switch (spec.type) {
    case 'string':
    case 'text':
    case 'uuid': {
      const text = typeof value === 'number' || typeof value === 'boolean' ? String(value) : value;
      if (typeof text !== 'string') throw bad('a string');
      if (spec.type === 'uuid' && RANDOM_UUID.test(text.trim())) return { kind: 'randomUuid' };
      if (spec.type === 'uuid' && !UUID.test(text)) throw bad('a uuid or "gen_random_uuid()"');
      if (spec.type === 'string' && text.length > (spec.maxLength ?? 255))
        throw bad(`at most ${spec.maxLength ?? 255} characters long`);
      return { kind: 'value', value: text };
    }
    case 'integer':
    case 'bigInteger': {
      const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
      if (!/^-?\d+$/.test(text)) throw bad('an integer');
      const limit = spec.type === 'integer' ? 2n ** 31n : 2n ** 63n;
      if (BigInt(text) < -limit || BigInt(text) >= limit) throw bad(`within the range of ${spec.type}`);
      return { kind: 'value', value: Number.isSafeInteger(Number(text)) ? Number(text) : text };
    }
    case 'float':
    case 'decimal': {
      const n =
        typeof value === 'number'
          ? value
          : typeof value === 'string' && /^\s*-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(value)
            ? Number(value)
            : NaN;
      if (!Number.isFinite(n)) throw bad('a number');
      return { kind: 'value', value: n };
    }
    case 'boolean':
      if (value === true || value === 1 || value === '1' || value === 'true') return { kind: 'value', value: true };
      if (value === false || value === 0 || value === '0' || value === 'false') return { kind: 'value', value: false };
      throw bad('a boolean');
    case 'date': {
      if (typeof value === 'string' && (TODAY.test(value.trim()) || NOW.test(value.trim()))) return { kind: 'today' };
      const m = typeof value === 'string' ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(value) : null;
      if (!m || !validDate(Number(m[1]), Number(m[2]), Number(m[3])))
        throw bad('a date (YYYY-MM-DD) or "CURRENT_DATE"');
      return { kind: 'value', value: value as string };
    }
    case 'dateTime':
    case 'timestamp': {
      if (typeof value === 'string' && NOW.test(value.trim())) return { kind: 'now' };
      const m = typeof value === 'string' ? DATE_TIME.exec(value.trim()) : null;
      if (!m || !validDate(Number(m[1]), Number(m[2]), Number(m[3])))
        throw bad('a date and time (YYYY-MM-DDTHH:mm:ss) or "CURRENT_TIMESTAMP"');
      if (spec.type === 'dateTime')
        return { kind: 'value', value: `${m[1]}-${m[2]}-${m[3]} ${m[4]}:${m[5]}:${m[6] ?? '00'}` };
      const text = (value as string)
        .trim()
        .replace(' ', 'T')
        .replace(/([+-]\d{2})$/, '$1:00');
      const instant = new Date(m[8] ? text : `${text}Z`);
      if (Number.isNaN(instant.getTime())) throw bad('a date and time');
      return { kind: 'value', value: instant.toISOString() };
    }
    case 'time': {
      const m = typeof value === 'string' ? /^(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value) : null;
      if (!m || Number(m[1]) > 23 || Number(m[2]) > 59 || Number(m[3] ?? 0) > 59) throw bad('a time (HH:mm:ss)');
      return { kind: 'value', value: `${m[1]}:${m[2]}:${m[3] ?? '00'}` };
    }
    case 'json':
      if (typeof value === 'string') {
        try {
          JSON.parse(value);
        } catch {
          throw bad('JSON (a value, or its JSON text)');
        }
        return { kind: 'value', value };
      }
      return { kind: 'value', value: JSON.stringify(value) };
    case 'binary':
      throw bad('null: binary fields take no default');
  }
}

/** Whether the introspected default (ColumnInfo.default_value) is the default `target` asks for. */
export function sameDefault(current: unknown, target: ColumnDefault, type: StorageType): boolean {
  if (current === null || current === undefined) return target.kind === 'none';
  if (current === FUNCTION_DEFAULTS.now && (type === 'dateTime' || type === 'timestamp')) return target.kind === 'now';
  if (current === FUNCTION_DEFAULTS.today && type === 'date') return target.kind === 'today';
  if (current === FUNCTION_DEFAULTS.randomUuid && type === 'uuid') return target.kind === 'randomUuid';
  if (target.kind !== 'value') return false;
  const value = target.value;
  switch (type) {
    case 'boolean':
      return booleanOf(current) === value;
    case 'integer':
    case 'bigInteger':
    case 'float':
    case 'decimal':
      return String(current) === String(value) || Number(current) === Number(value);
    case 'json':
      try {
        return JSON.stringify(JSON.parse(String(current))) === JSON.stringify(JSON.parse(String(value)));
      } catch {
        return false;
      }
    case 'dateTime':
    case 'timestamp':
      return instant(current, type) === instant(value, type);
    default:
      return String(current) === String(value);
  }
}

function booleanOf(value: unknown): boolean | null {
  if (value === true || value === 1 || value === '1' || value === 'true' || value === 't') return true;
  if (value === false || value === 0 || value === '0' || value === 'false' || value === 'f') return false;
  return null;
}

function instant(value: unknown, type: StorageType): number {
  let text = String(value)
    .trim()
    .replace(' ', 'T')
    .replace(/([+-]\d{2})$/, '$1:00');
  if (type === 'dateTime' || !/(Z|[+-]\d{2}:?\d{2})$/.test(text))
    text = `${text.replace(/(Z|[+-]\d{2}:?\d{2})$/, '')}Z`;
  return Date.parse(text);
}

/** The default a column has now, as a ColumnDefault (kept across a type change unless the body sets another). */
function currentDefault(column: ColumnInfo): ColumnDefault {
  const value = column.default_value;
  if (value === null || value === undefined || column.has_auto_increment) return { kind: 'none' };
  if (value === FUNCTION_DEFAULTS.now) return { kind: 'now' };
  if (value === FUNCTION_DEFAULTS.today) return { kind: 'today' };
  if (value === FUNCTION_DEFAULTS.randomUuid) return { kind: 'randomUuid' };
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return { kind: 'value', value };
  return { kind: 'value', value: JSON.stringify(value) };
}

/**
 * The column of a new field (not alias). `primaryKeyAllowed`: only while creating a collection;
 * `autoIncrementBesideKey`: the database can auto-increment a column that is no key.
 */
export function newColumn(
  input: FieldInput,
  type: ServiceType,
  primaryKeyAllowed: boolean,
  autoIncrementBesideKey = false,
): ColumnSpec {
  const storage = storageFor(type);
  if (!storage) throw new InvalidPayloadError(`Type "${type}" can't be stored in a column`);
  const s: SchemaInput = input.schema ?? {};
  if (s.is_generated)
    throw new InvalidPayloadError(`Field "${input.field}": generated columns are not created through the API`);
  const primaryKey = s.is_primary_key === true;
  if (primaryKey && !primaryKeyAllowed)
    throw new InvalidPayloadError(
      `Field "${input.field}": a primary key can only be set when the collection is created`,
    );
  const autoIncrement = s.has_auto_increment === true;
  if (
    autoIncrement &&
    ((!primaryKey && !autoIncrementBesideKey) || (storage !== 'integer' && storage !== 'bigInteger'))
  ) {
    throw new InvalidPayloadError(
      `Field "${input.field}": only an integer or bigInteger ${autoIncrementBesideKey ? 'field' : 'primary key'} can auto-increment`,
    );
  }
  const precision = storage === 'decimal' ? (s.numeric_precision ?? 10) : null;
  const scale = storage === 'decimal' ? (s.numeric_scale ?? Math.min(5, precision!)) : null;
  if (precision !== null && scale! > precision)
    throw new InvalidPayloadError(`Field "${input.field}": "numeric_scale" can't be larger than "numeric_precision"`);
  const spec: ColumnSpec = {
    name: input.field,
    type: storage,
    maxLength: storage === 'string' ? (s.max_length ?? 255) : null,
    precision,
    scale,
    nullable: primaryKey ? false : (s.is_nullable ?? true),
    default: { kind: 'none' },
    primaryKey,
    autoIncrement,
    unique: s.is_unique ?? false,
    indexed: s.is_indexed ?? false,
    comment: s.comment ?? null,
  };
  spec.default = autoIncrement ? { kind: 'none' } : parseDefault(s.default_value, spec);
  return spec;
}

export interface ColumnAlteration {
  target: ColumnSpec;
  changes: ColumnChanges;
  /** The check a type change needs (null when the type stays). */
  conversion: ConversionCheck | null;
}

/** What a PATCH asks of an existing column: the attributes not given keep their current value. */
export function alterColumn(
  collection: string,
  field: FieldOverview,
  input: FieldInput,
  ddl: SchemaDdl,
): ColumnAlteration {
  const column = field.schema!;
  const name = field.field;
  const s: SchemaInput = input.schema ?? {};
  const newType = input.type ?? field.type;
  if (newType === 'alias')
    throw new InvalidPayloadError(`Field "${name}" has a column and can't become an alias field`);
  const storage = storageFor(newType);
  if (!storage) throw new InvalidPayloadError(`Type "${newType}" can't be stored in a column`);
  const currentStorage = storageOfField(field.type, column.max_length);

  if (s.is_primary_key !== undefined && s.is_primary_key !== column.is_primary_key) {
    throw new InvalidPayloadError(`Field "${name}": the primary key of a collection can't be changed`);
  }
  if (s.is_generated !== undefined && s.is_generated !== column.is_generated) {
    throw new InvalidPayloadError(`Field "${name}": a column can't be made generated or plain`);
  }
  if (s.has_auto_increment !== undefined && s.has_auto_increment !== column.has_auto_increment) {
    throw new InvalidPayloadError(`Field "${name}": auto-increment can't be switched on or off`);
  }

  const sizeGiven =
    (storage === 'string' && s.max_length != null && s.max_length !== column.max_length) ||
    (storage === 'decimal' &&
      ((s.numeric_precision != null && s.numeric_precision !== column.numeric_precision) ||
        (s.numeric_scale != null && s.numeric_scale !== column.numeric_scale)));
  const precision =
    storage === 'decimal'
      ? (s.numeric_precision ?? (currentStorage === 'decimal' ? column.numeric_precision : null) ?? 10)
      : null;
  const target: ColumnSpec = {
    name,
    type: storage,
    maxLength:
      storage === 'string' ? (s.max_length ?? (currentStorage === 'string' ? column.max_length : null) ?? 255) : null,
    precision,
    scale:
      storage === 'decimal'
        ? (s.numeric_scale ?? (currentStorage === 'decimal' ? column.numeric_scale : null) ?? Math.min(5, precision!))
        : null,
    nullable: s.is_nullable ?? column.is_nullable,
    default: currentDefault(column),
    primaryKey: column.is_primary_key,
    autoIncrement: column.has_auto_increment,
    unique: s.is_unique ?? column.is_unique,
    indexed: s.is_indexed ?? column.is_indexed,
    comment: 'comment' in s ? s.comment || null : column.comment,
  };
  if (target.precision !== null && target.scale! > target.precision) {
    throw new InvalidPayloadError(`Field "${name}": "numeric_scale" can't be larger than "numeric_precision"`);
  }
  if ('default_value' in s) target.default = parseDefault(s.default_value, target);

  const typeWanted = newType !== field.type || sizeGiven;
  const changes: ColumnChanges = {
    type: typeWanted && !sameStorage(ddl, column, target),
    nullable: target.nullable !== column.is_nullable,
    default: 'default_value' in s && !sameDefault(column.default_value, target.default, storage),
    comment: ddl.comments && 'comment' in s && (target.comment ?? null) !== (column.comment || null),
    unique: !column.is_primary_key && target.unique !== column.is_unique,
    // A unique index indexes the column already.
    indexed: !column.is_primary_key && target.indexed !== column.is_indexed && !(target.indexed && target.unique),
  };

  if (column.is_generated && Object.values(changes).some(Boolean)) {
    throw new InvalidPayloadError(
      `Field "${name}" in collection "${collection}" is generated by the database and can't be changed`,
    );
  }
  if (column.is_primary_key && changes.nullable) {
    throw new InvalidPayloadError(
      `Field "${name}" is the primary key of collection "${collection}" and can't be nullable`,
    );
  }
  if (column.has_auto_increment && changes.type && !(storage === 'bigInteger' || storage === 'integer')) {
    throw new InvalidPayloadError(
      `Field "${name}" in collection "${collection}" auto-increments and can only be an integer or bigInteger`,
    );
  }

  let conversion: ConversionCheck | null = null;
  if (changes.type) {
    conversion = currentStorage ? conversionCheck(currentStorage, column, target) : null;
    if (conversion === null) {
      throw new InvalidPayloadError(
        `Field "${name}" in collection "${collection}" can't be changed from ${field.type} to ${newType}`,
      );
    }
  }
  return { target, changes, conversion };
}

export function hasChanges(changes: ColumnChanges): boolean {
  return Object.values(changes).some(Boolean);
}
