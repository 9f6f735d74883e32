/**
 * How a stored value reads in a table cell or beside a form field, by its field: dates and times in the user's
 * locale and time zone, numbers grouped for the locale, choices by their text, booleans, JSON and colours.
 * `dateTime` values carry no zone (Directus stores the wall-clock time), so they are shown as written;
 * `timestamp` values are instants and are shown in the user's time zone.
 */
import { language } from './names';
import type { Field } from './session';

export type Shown =
  | { kind: 'empty'; text: string }
  | { kind: 'boolean'; value: boolean; text: string }
  | { kind: 'color'; color: string; text: string }
  | { kind: 'json'; text: string; full: string }
  | { kind: 'text'; text: string };

const formats = new Map<string, Intl.DateTimeFormat | Intl.NumberFormat>();
function cached<T extends Intl.DateTimeFormat | Intl.NumberFormat>(key: string, make: () => T): T {
  let found = formats.get(key) as T | undefined;
  if (!found) formats.set(key, (found = make()));
  return found;
}

const dateFormat = (options: Intl.DateTimeFormatOptions) =>
  cached(`d:${language()}:${JSON.stringify(options)}`, () => new Intl.DateTimeFormat(language(), options));

export function formatDate(type: string, value: string): string {
  if (type === 'time') {
    const [h, m, s] = value.split(':').map(Number);
    if ([h, m].some((n) => n === undefined || Number.isNaN(n))) return value;
    const at = new Date(Date.UTC(2000, 0, 1, h!, m!, s || 0));
    return dateFormat({ timeStyle: s ? 'medium' : 'short', timeZone: 'UTC' }).format(at);
  }
  if (type === 'date') {
    const at = new Date(`${value.slice(0, 10)}T00:00:00Z`);
    return Number.isNaN(at.getTime()) ? value : dateFormat({ dateStyle: 'medium', timeZone: 'UTC' }).format(at);
  }
  const zoned = /(Z|[+-]\d\d:?\d\d)$/.test(value);
  if (type === 'timestamp' || zoned) {
    const at = new Date(value);
    return Number.isNaN(at.getTime()) ? value : dateFormat({ dateStyle: 'medium', timeStyle: 'short' }).format(at);
  }
  const at = new Date(`${value.replace(' ', 'T')}Z`);
  return Number.isNaN(at.getTime())
    ? value
    : dateFormat({ dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(at);
}

export function formatNumber(type: string, value: number | string): string {
  const n = Number(value);
  if (!Number.isFinite(n)) return String(value);
  // Big integers and decimals beyond a double's precision are shown as sent.
  if ((type === 'bigInteger' || type === 'decimal') && String(value).replace(/\D/g, '').length > 15)
    return String(value);
  const format = cached(`n:${language()}`, () => new Intl.NumberFormat(language(), { maximumFractionDigits: 20 }));
  return format.format(n);
}

const clip = (text: string, length: number) => (text.length > length ? text.slice(0, length - 1) + '…' : text);
const COLOR = /^#([0-9a-f]{3}|[0-9a-f]{4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;

/** A value as a field's display shows it; `long` keeps more of long text (item pages), tables clip. */
export function shown(field: Field | undefined, value: unknown, long = false): Shown {
  if (value === null || value === undefined || value === '') return { kind: 'empty', text: '—' };
  const type = field?.type ?? typeof value;
  const iface = field?.meta?.interface ?? '';
  if (typeof value === 'boolean') return { kind: 'boolean', value, text: value ? 'Yes' : 'No' };
  const choices = field?.meta?.options?.choices;
  if (Array.isArray(choices) && choices.length) {
    const texts = (Array.isArray(value) ? value : [value]).map(
      (v) => choices.find((c: any) => c?.value === v || String(c?.value) === String(v))?.text ?? String(v),
    );
    return { kind: 'text', text: clip(texts.join(', '), long ? 400 : 80) };
  }
  if (typeof value === 'string' && (iface === 'select-color' || (field?.meta as any)?.display === 'color'))
    if (COLOR.test(value)) return { kind: 'color', color: value, text: value };
  if (typeof value === 'object') {
    const full = JSON.stringify(value, null, 2);
    if (Array.isArray(value) && value.every((v) => typeof v === 'string'))
      return { kind: 'text', text: clip(value.join(', '), long ? 400 : 80) };
    return { kind: 'json', full, text: clip(JSON.stringify(value), long ? 400 : 60) };
  }
  if (['date', 'dateTime', 'time', 'timestamp'].includes(type) && typeof value === 'string')
    return { kind: 'text', text: formatDate(type, value) };
  if (['integer', 'bigInteger', 'float', 'decimal'].includes(type))
    return { kind: 'text', text: formatNumber(type, value as number) };
  if (iface === 'input-rich-text-html' && typeof value === 'string') {
    const text = new DOMParser().parseFromString(value, 'text/html').body.textContent ?? '';
    return { kind: 'text', text: clip(text.trim(), long ? 400 : 80) };
  }
  if (iface === 'input' && field?.meta?.options?.masked) return { kind: 'text', text: '••••••' };
  return { kind: 'text', text: clip(String(value), long ? 400 : 80) };
}
