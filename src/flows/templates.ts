/**
 * Directus's `{{ path }}` templates in operation options, over the data chain: a string that is one template alone
 * takes the value as it is (an object stays an object); a template inside text is written into it (objects as JSON).
 * Paths are dotted (`$trigger.payload.title`, `$last.0.id`, `$last[0].id`); a missing value is undefined / ''.
 */
import { refusedKey } from './safe-objects.js';

const WHOLE = /^\s*\{\{\s*([^{}]+?)\s*\}\}\s*$/;
const ANY = /\{\{\s*([^{}]+?)\s*\}\}/g;

export function valueAt(data: unknown, path: string): unknown {
  let at: unknown = data;
  for (const part of path.replace(/\[(\d+)\]/g, '.$1').split('.')) {
    if (part === '') continue;
    if (refusedKey(part) || at === null || typeof at !== 'object') return undefined;
    at = Object.prototype.hasOwnProperty.call(at, part) ? (at as Record<string, unknown>)[part] : undefined;
  }
  return at;
}

function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** Every string of `options` (deeply) with its templates filled from `data`. */
export function render(options: unknown, data: unknown, depth = 0): unknown {
  if (depth > 32) return options;
  if (typeof options === 'string') {
    const whole = WHOLE.exec(options);
    if (whole) return valueAt(data, whole[1]!);
    return options.replace(ANY, (_m, path: string) => asText(valueAt(data, path)));
  }
  if (Array.isArray(options)) return options.map((item) => render(item, data, depth + 1));
  if (options && typeof options === 'object') {
    const out = Object.create(null) as Record<string, unknown>;
    for (const [key, value] of Object.entries(options)) if (!refusedKey(key)) out[key] = render(value, data, depth + 1);
    return out;
  }
  return options;
}
