/** Helpers for field paths as written in `fields`, `sort` and filter keys. */

export const FIELD_FUNCTIONS = [
  'year',
  'month',
  'week',
  'day',
  'weekday',
  'hour',
  'minute',
  'second',
  'count',
  'json',
] as const;

/** `year(date_published)` → {fn: 'year', field: 'date_published'}; `title` → {fn: null, field: 'title'}. */
export function parseFieldFunction(name: string): { fn: string | null; field: string } {
  const match = /^(\w+)\((.+)\)$/.exec(name.trim());
  if (!match) return { fn: null, field: name };
  return { fn: match[1]!, field: match[2]!.trim() };
}

/** Splits on top-level characters (`,` or `.`), leaving those inside parentheses alone. */
export function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    else if (ch === ')') depth = Math.max(0, depth - 1);
    if (ch === separator && depth === 0) {
      parts.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  parts.push(current);
  return parts;
}

/** `author.name` → ['author', 'name']; dots inside a function call stay. */
export function splitFieldPath(path: string): string[] {
  return splitTopLevel(path, '.');
}
