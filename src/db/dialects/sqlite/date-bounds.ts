/**
 * Index-friendly bounds for date comparisons on SQLite. A date column may hold ISO text (with a space or a `T`,
 * with or without fractions and zone) or epoch milliseconds, so the exact comparison goes through strftime(), which
 * no index serves. Beside it, this module writes a looser condition on the column as stored: a range over the text
 * forms (dates compared by their leading `YYYY-MM-DD`, widened by a day each side for zone offsets) OR a range over
 * the numeric form (SQLite orders every number before every text). The index narrows the rows to that superset, the
 * exact comparison keeps the right ones.
 */
import type { FieldOverview } from '../../../schema/types.js';

const DAY = 86_400_000;
/** Types held as a calendar date or moment (time-of-day columns have no useful bound). */
const DATE_TYPES = new Set(['date', 'dateTime', 'timestamp']);

/** Epoch milliseconds of a canonical date value (no zone = UTC, as the exact comparison reads it); null otherwise. */
function epoch(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const text = /^\d{4}-\d{2}-\d{2}$/.test(value)
    ? `${value}T00:00:00Z`
    : /[zZ]|[+-]\d{2}:?\d{2}$/.test(value)
      ? value
      : `${value}Z`;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : null;
}

function day(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function dateBound(
  column: string,
  field: FieldOverview,
  operator: string,
  values: unknown[],
  param: (value: unknown) => string,
): string | null {
  if (!DATE_TYPES.has(field.type)) return null;
  const moments = values.map(epoch);
  if (moments.some((m) => m === null)) return null;
  const [first, last] = [moments[0]!, moments[moments.length - 1]!];
  let low: number | null;
  let high: number | null;
  switch (operator) {
    case '_gt':
    case '_gte':
      [low, high] = [first, null];
      break;
    case '_lt':
    case '_lte':
      [low, high] = [null, first];
      break;
    case '_eq':
    case '_between':
      [low, high] = [first, last];
      break;
    default:
      return null;
  }
  const text = [low === null ? `${column} >= ''` : `${column} >= ${param(day(low - DAY))}`];
  if (high !== null) text.push(`${column} < ${param(day(high + 2 * DAY))}`);
  const numbers = [];
  if (low !== null) numbers.push(`${column} >= ${param(low - DAY)}`);
  numbers.push(high === null ? `${column} < ''` : `${column} <= ${param(high + DAY)}`);
  return `((${text.join(' and ')}) or (${numbers.join(' and ')}))`;
}
