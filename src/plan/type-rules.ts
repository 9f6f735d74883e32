/**
 * Which functions and aggregates apply to which field types. The planner checks them before any SQL, so a request
 * that asks for one where it does not apply is INVALID_QUERY on every database alike, instead of whatever each
 * database makes of it (PostgreSQL has no hour of a date, no min/max of a uuid and no equality of json values, where
 * SQLite and MariaDB answer something).
 *
 * Functions (Directus docs: Query parameters, functions; GraphQL `<field>_func`):
 * - `year`, `month`, `week`, `day`, `weekday`: date, dateTime, timestamp;
 * - `hour`, `minute`, `second`: dateTime, timestamp, time (a date has no time of day);
 * - `count`: one-to-many and JSON fields (checked where the relation is known, in operands.ts).
 *
 * Aggregates (Directus docs: Query parameters, aggregate; its GraphQL offers sum/avg/min/max on numeric fields only,
 * its REST passes them to the database: here REST keeps min/max of every ordered type, the same on every database):
 * - `count`: every field that holds a value;
 * - `countDistinct`: values every database can compare for equality: not json, geometry or unknown types;
 * - `sum`, `sumDistinct`, `avg`, `avgDistinct`: numbers (integer, bigInteger, float, decimal);
 * - `min`, `max`: ordered values: numbers, string, text, date, dateTime, timestamp, time (not uuid, boolean, json,
 *   binary, csv, geometry);
 * - `groupBy`: every value type but json, binary, csv, geometry and unknown ones.
 */
import type { ServiceType } from '../schema/types.js';
import type { DatePart, PlannedAggregate } from './read-plan.js';

const DAY_PARTS = new Set<string>(['year', 'month', 'week', 'day', 'weekday']);
const TIME_PARTS = new Set<string>(['hour', 'minute', 'second']);
const HAS_DAY = new Set<ServiceType>(['date', 'dateTime', 'timestamp']);
const HAS_TIME = new Set<ServiceType>(['dateTime', 'timestamp', 'time']);

export const NUMERIC_TYPES: ReadonlySet<ServiceType> = new Set(['integer', 'bigInteger', 'float', 'decimal']);
const ORDERED_TYPES = new Set<ServiceType>([
  ...NUMERIC_TYPES,
  'string',
  'text',
  'date',
  'dateTime',
  'timestamp',
  'time',
]);
const WITHOUT_EQUALITY = new Set<ServiceType>(['json', 'geometry', 'unknown', 'alias']);
const UNGROUPABLE = new Set<ServiceType>(['json', 'binary', 'csv', 'geometry', 'unknown', 'alias']);

export function isDatePart(fn: string): fn is DatePart {
  return DAY_PARTS.has(fn) || TIME_PARTS.has(fn);
}

/** Whether a date part applies to a field of `type`. */
export function datePartApplies(fn: DatePart, type: ServiceType): boolean {
  return DAY_PARTS.has(fn) ? HAS_DAY.has(type) : HAS_TIME.has(type);
}

/** Whether `fn` applies to a field of `type` (a field that holds a value; `countAll` takes none). */
export function aggregateApplies(fn: PlannedAggregate['fn'], type: ServiceType): boolean {
  switch (fn) {
    case 'count':
    case 'countAll':
      return true;
    case 'countDistinct':
      return !WITHOUT_EQUALITY.has(type);
    case 'min':
    case 'max':
      return ORDERED_TYPES.has(type);
    default:
      return NUMERIC_TYPES.has(type);
  }
}

/** What `fn` needs, for its refusal. */
export function aggregateNeeds(fn: PlannedAggregate['fn']): string {
  if (fn === 'countDistinct') return 'values that compare for equality (not json)';
  if (fn === 'min' || fn === 'max') return 'ordered values (a number, text, a date or a time)';
  return 'a numeric field';
}

export function groupable(type: ServiceType): boolean {
  return !UNGROUPABLE.has(type);
}
