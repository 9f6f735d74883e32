/**
 * The calendar layout's dates: a month's grid of weeks (starting on the locale's first day of the week), the filter
 * that reads only the grid's range, and the day a stored value falls on. `date` and `dateTime` values carry no zone
 * and are placed on the day they name; `timestamp` values are instants, placed on the day they fall on in the
 * browser's time zone (as the table shows them).
 */
import { language } from './names';

export interface Day {
  date: string;
  inMonth: boolean;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
/** A local day as YYYY-MM-DD. */
export const isoDay = (d: Date) => `${pad(d.getFullYear(), 4)}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
export const parseDay = (day: string) => {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(y!, m! - 1, d!);
};
export const addDays = (day: string, n: number) => {
  const d = parseDay(day);
  d.setDate(d.getDate() + n);
  return isoDay(d);
};

/** The locale's first day of the week as Date.getDay() counts (0 = Sunday); Monday when the browser cannot say. */
export function firstWeekday(): number {
  try {
    const locale = new Intl.Locale(language()) as any;
    const info = locale.getWeekInfo?.() ?? locale.weekInfo;
    if (info?.firstDay) return info.firstDay % 7;
  } catch {
    // an odd language tag: the default
  }
  return 1;
}

/** The weeks shown for a month (0-based): whole weeks from the one holding the 1st to the one holding the last day. */
export function monthGrid(year: number, month: number, firstDay: number): Day[][] {
  const first = new Date(year, month, 1);
  const offset = (first.getDay() - firstDay + 7) % 7;
  const days = new Date(year, month + 1, 0).getDate();
  const weeks: Day[][] = [];
  for (let w = 0; w < Math.ceil((offset + days) / 7); w++) {
    const week: Day[] = [];
    for (let i = 0; i < 7; i++) {
      const d = new Date(year, month, 1 - offset + w * 7 + i);
      week.push({ date: isoDay(d), inMonth: d.getMonth() === month });
    }
    weeks.push(week);
  }
  return weeks;
}

/** A day's first or last second as a filter value for the field's type (`date` values are days). */
export function boundary(type: string, day: string, edge: 'start' | 'end'): string {
  if (type === 'date') return day;
  if (type === 'timestamp') {
    const at = parseDay(day);
    if (edge === 'end') at.setTime(parseDay(addDays(day, 1)).getTime() - 1000);
    return at.toISOString().replace(/\.000Z$/, 'Z');
  }
  return `${day}T${edge === 'start' ? '00:00:00' : '23:59:59'}`;
}

const only = (field: string, op: string, value: unknown) => {
  const inner = Object.create(null);
  inner[op] = value;
  const outer = Object.create(null);
  outer[field] = inner;
  return outer as Record<string, unknown>;
};

/**
 * Items whose start falls on the days from `first` to `last` (both shown), as one `_between`: a single range an
 * index on the field serves (a `_gte` and a `_lt` beside each other are not narrowed together). With an end field,
 * also those that began before and end on or after `first`, the other side of an `_or` an index on the end serves.
 */
export function rangeFilter(
  start: { field: string; type: string },
  end: { field: string; type: string } | null,
  first: string,
  last: string,
): Record<string, unknown> {
  const startsIn = only(start.field, '_between', [
    boundary(start.type, first, 'start'),
    boundary(start.type, last, 'end'),
  ]);
  if (!end) return startsIn;
  const before = only(start.field, '_lt', boundary(start.type, first, 'start'));
  return { _or: [startsIn, { _and: [before, only(end.field, '_gte', boundary(end.type, first, 'start'))] }] };
}

/** The day a stored value falls on; null for no value or one that is not a date. */
export function dayOf(type: string, value: unknown): string | null {
  if (typeof value !== 'string' || !value) return null;
  if (type === 'timestamp' || /(Z|[+-]\d\d:?\d\d)$/.test(value)) {
    const at = new Date(value);
    return Number.isNaN(at.getTime()) ? null : isoDay(at);
  }
  return /^\d{4}-\d\d-\d\d/.test(value) ? value.slice(0, 10) : null;
}

/** A month's name for the heading ("November 2026"). */
export const monthTitle = (year: number, month: number) =>
  new Intl.DateTimeFormat(language(), { month: 'long', year: 'numeric' }).format(new Date(year, month, 1));

/** The weekday names in the grid's order, long (for screen readers) and short. */
export function weekdays(firstDay: number): { long: string; short: string }[] {
  const long = new Intl.DateTimeFormat(language(), { weekday: 'long' });
  const short = new Intl.DateTimeFormat(language(), { weekday: 'short' });
  // 2023-01-01 was a Sunday.
  return Array.from({ length: 7 }, (_, i) => {
    const d = new Date(2023, 0, 1 + ((firstDay + i) % 7));
    return { long: long.format(d), short: short.format(d) };
  });
}

/** A day's full date, for a screen reader and the phone-width list. */
export const dayTitle = (day: string) =>
  new Intl.DateTimeFormat(language(), { weekday: 'long', day: 'numeric', month: 'long' }).format(parseDay(day));
