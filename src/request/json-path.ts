/**
 * `json(field, path)` in `fields` (Directus 11.17's JSON extraction): the value at `path` inside a JSON field,
 * answered under `<field>_<path>_json`. The first argument may be a relational path (`author.settings`,
 * `sections.item:headings.meta`); the path is dot keys and `[n]` array indexes (`items[0].name`, `[0]`). Wildcards,
 * JSONPath predicates, `$` and `@` are refused, as Directus refuses them. Pure.
 */
import { InvalidQueryError } from '../errors/catalogue.js';

export type JsonPathSegment = string | number;

export interface JsonFunction {
  /** The first argument as written: a field, or a relational path ending on one. */
  field: string;
  /** The path, normalised to start with `.` or `[` (`.items[0].name`). */
  path: string;
  segments: JsonPathSegment[];
}

const JSON_CALL = /^json\((.*)\)$/s;
/**
 * Characters a key may not hold: path syntax, wildcards, JSONPath operators, quotes and control characters (NUL ends
 * a PostgreSQL text and SQLite's path, each its own way).
 */
const KEY_FORBIDDEN = /[.[\]*?@$()"'\\\s\u0000-\u001f]/;

export function isJsonFunction(text: string): boolean {
  return JSON_CALL.test(text.trim());
}

/** `json(metadata, items[0].name)` → {field: 'metadata', path: '.items[0].name', segments: ['items', 0, 'name']}. */
export function parseJsonFunction(text: string): JsonFunction {
  const match = JSON_CALL.exec(text.trim());
  if (!match) throw new InvalidQueryError(`Invalid json() syntax in "${text}"`);
  const content = match[1]!;
  const comma = content.indexOf(',');
  if (comma === -1) throw new InvalidQueryError(`Invalid json() syntax in "${text}": it takes json(field, path)`);
  const field = content.slice(0, comma).trim();
  const written = content.slice(comma + 1).trim();
  if (!field) throw new InvalidQueryError(`Invalid json() syntax in "${text}": the field is missing`);
  if (!written) throw new InvalidQueryError(`Invalid json() syntax in "${text}": the path is missing`);
  const path = written.startsWith('[') ? written : `.${written}`;
  return { field, path, segments: parseSegments(path, text) };
}

function parseSegments(path: string, text: string): JsonPathSegment[] {
  const segments: JsonPathSegment[] = [];
  const bad = (why: string) => new InvalidQueryError(`Unsupported json() path in "${text}": ${why}`);
  let i = 0;
  while (i < path.length) {
    if (path[i] === '[') {
      const end = path.indexOf(']', i);
      const index = end === -1 ? '' : path.slice(i + 1, end);
      if (!/^\d+$/.test(index)) throw bad('array indexes are whole numbers in brackets ("items[0]")');
      segments.push(Number(index));
      i = end + 1;
    } else if (path[i] === '.') {
      let end = i + 1;
      while (end < path.length && path[end] !== '.' && path[end] !== '[') end++;
      const key = path.slice(i + 1, end);
      if (!key || KEY_FORBIDDEN.test(key)) throw bad(`"${key}" is not a key it can follow`);
      segments.push(key);
      i = end;
    } else {
      throw bad(`unexpected "${path[i]}"`);
    }
  }
  return segments;
}

/** Depth as Directus counts it: one per key and per array index. */
export function jsonPathDepth(fn: JsonFunction): number {
  return fn.segments.length;
}

/** The response key: `<field>_<path>_json`, the path's `.`, `[` and `]` turned into single underscores. */
export function jsonFunctionKey(field: string, path: string): string {
  const flat = path.replace(/[.[\]]+/g, '_').replace(/^_+|_+$/g, '');
  return `${field}_${flat}_json`;
}

/**
 * `json(a.b.c, p)` → `a.json(b.c, p)`: the relational part of the first argument moves in front, so that each
 * level's selection plans its own part (the m2a scope `item:<collection>` stays one segment).
 */
export function hoistJsonFunction(text: string, split: (path: string) => string[]): string | null {
  if (!isJsonFunction(text)) return null;
  const fn = parseJsonFunction(text);
  const parts = split(fn.field);
  if (parts.length < 2) return null;
  const written = fn.path.startsWith('.') ? fn.path.slice(1) : fn.path;
  return `${parts[0]}.json(${parts.slice(1).join('.')}, ${written})`;
}
