/**
 * A failed write statement as a dialect reads its driver's error (src/db/dialects/<vendor>/error-translation.ts),
 * and its translation into a catalogue error naming the collection and field (Directus docs: Errors). When the driver does
 * not name the column (PostgreSQL's length and range errors, SQLite's foreign keys) the field is found from the
 * values the statement wrote.
 */
import type { CollectionOverview, SchemaOverview } from '../schema/types.js';
import {
  InvalidForeignKeyError,
  InvalidPayloadError,
  NotNullViolationError,
  RecordNotUniqueError,
  type ServiceError,
  ValueOutOfRangeError,
  ValueTooLongError,
} from './catalogue.js';

export interface DatabaseFailure {
  kind: 'unique' | 'foreign_key' | 'not_null' | 'too_long' | 'out_of_range' | 'invalid_value';
  /** The table the driver names, or null. */
  table: string | null;
  /** The column the driver names, or null. */
  column: string | null;
  /** The offending value as the driver quotes it (duplicate entries, out-of-range input), or null. */
  value: string | null;
  /** For too_long without a column: the length of the type the driver names (`character varying(20)` → 20). */
  maxLength: number | null;
  /** For foreign_key: true when a delete or key change left rows pointing at the row (not a bad reference). */
  referenced?: boolean;
}

/** The statement that failed: its collection and the logical values of the rows it wrote (by field). */
export interface WriteTarget {
  collection: CollectionOverview;
  rows: readonly Record<string, unknown>[];
}

export function failure(kind: DatabaseFailure['kind'], over: Partial<DatabaseFailure> = {}): DatabaseFailure {
  return { kind, table: null, column: null, value: null, maxLength: null, ...over };
}

export function translateFailure(failed: DatabaseFailure, target: WriteTarget, schema: SchemaOverview): ServiceError {
  const named = failed.table ? schema.collections[failed.table] : undefined;
  const collection = failed.referenced ? target.collection : (named ?? target.collection);
  const field = failed.column && collection.fields[failed.column] ? failed.column : guessField(failed, collection === target.collection ? target : null);
  const name = collection.collection;
  switch (failed.kind) {
    case 'unique':
      return new RecordNotUniqueError(name, field, failed.value ?? (field ? valueOf(target, field) : null));
    case 'foreign_key':
      return new InvalidForeignKeyError(name, field);
    case 'not_null':
      return new NotNullViolationError(name, field);
    case 'too_long':
      return new ValueTooLongError(name, field);
    case 'out_of_range':
      return new ValueOutOfRangeError(name, field);
    case 'invalid_value':
      return new InvalidPayloadError(field ? `Invalid value for field "${field}" in collection "${name}"` : `Invalid value in collection "${name}"`, {
        collection: name,
        field,
      });
  }
}

/** The field whose written value explains the failure, when exactly one can. */
function guessField(failed: DatabaseFailure, target: WriteTarget | null): string | null {
  if (!target) return null;
  const written = [...new Set(target.rows.flatMap((row) => Object.keys(row)))].map((name) => target.collection.fields[name]).filter((f) => f?.schema);
  const holds = (name: string, test: (value: unknown) => boolean) => target.rows.some((row) => row[name] !== undefined && row[name] !== null && test(row[name]));
  let candidates: string[] = [];
  switch (failed.kind) {
    case 'unique':
      candidates = written.filter((f) => f!.schema!.is_unique || f!.primaryKey).map((f) => f!.field);
      if (failed.value !== null && candidates.length > 1) candidates = candidates.filter((name) => holds(name, (v) => String(v) === failed.value));
      break;
    case 'too_long':
      candidates = written
        .filter((f) => f!.schema!.max_length !== null && (failed.maxLength === null || f!.schema!.max_length === failed.maxLength))
        .filter((f) => holds(f!.field, (v) => [...String(v)].length > f!.schema!.max_length!))
        .map((f) => f!.field);
      break;
    case 'out_of_range':
    case 'invalid_value':
      candidates = written.map((f) => f!.field);
      if (failed.value !== null) candidates = candidates.filter((name) => holds(name, (v) => String(v) === failed.value));
      else if (failed.kind === 'out_of_range') candidates = candidates.filter((name) => ['integer', 'bigInteger', 'float', 'decimal'].includes(target.collection.fields[name]!.type));
      break;
    case 'foreign_key':
      candidates = written.filter((f) => target.collection.links[f!.field]?.kind === 'm2o' || f!.schema!.foreign_key_table).filter((f) => holds(f!.field, () => true)).map((f) => f!.field);
      break;
    case 'not_null':
      break;
  }
  return candidates.length === 1 ? candidates[0]! : null;
}

function valueOf(target: WriteTarget, field: string): unknown {
  const values = target.rows.map((row) => row[field]).filter((v) => v !== undefined && v !== null);
  return values.length === 1 ? values[0] : null;
}
