/**
 * Names from outside (query keys, CSV headers, diff paths, JSON keys) must never reach `Object.prototype`: `__proto__`
 * is its accessor on every plain object, and `constructor.prototype` leads to it as well. One write through either
 * changes every object in the process (prototype pollution): a later request then crashes or logins fail. Where
 * Strata walks an outside name as a path, or builds an object keyed by outside names, it refuses these three names
 * (`refusedKeyPath`, `isPrototypeKey`) and keys its own objects on no prototype (`emptyRecord`).
 */
import { InvalidQueryError } from '../errors/catalogue.js';

export const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Marks a URL query that named one of the keys (qs drops such keys silently, so the route could not see them): the
 * HTTP layer answers INVALID_QUERY for a parsed query carrying it.
 */
export const REFUSED_QUERY_KEY: unique symbol = Symbol('strata.refusedQueryKey');

export function isPrototypeKey(key: unknown): boolean {
  return typeof key === 'string' && PROTOTYPE_KEYS.has(key);
}

/** An object to key by outside names: it inherits nothing, so `record[name]` finds only what was put there. */
export function emptyRecord<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

type KeyTest = (key: string, value: unknown) => boolean;

const anyPrototypeKey: KeyTest = (key) => PROTOTYPE_KEYS.has(key);

/**
 * What a JSON request body may not hold (Fastify's parser refuses the same, with secure-json-parse): a `__proto__`
 * key, or a `constructor` key holding a `prototype`. Other uses of the names are plain data (a JSON field's content).
 */
export const jsonBodyKey: KeyTest = (key, value) =>
  key === '__proto__' ||
  (key === 'constructor' && value !== null && typeof value === 'object' && Object.hasOwn(value, 'prototype'));

/**
 * The path (`fields[2].meta.__proto__`) of the first own key of `value`, at any depth, that `refused` matches (by
 * default any of the three names); null when there is none. Iterative, so that a value nested as deeply as a parser
 * allows cannot overflow the stack.
 */
export function refusedKeyPath(value: unknown, prefix = '', refused: KeyTest = anyPrototypeKey): string | null {
  const stack: { value: unknown; path: string }[] = [{ value, path: prefix }];
  while (stack.length) {
    const { value: current, path } = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], path: `${path}[${i}]` });
      continue;
    }
    const keys = Object.keys(current);
    for (const key of keys)
      if (refused(key, (current as Record<string, unknown>)[key])) return path ? `${path}.${key}` : key;
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      stack.push({ value: (current as Record<string, unknown>)[key], path: path ? `${path}.${key}` : key });
    }
  }
  return null;
}

/** The wording of every refusal, so that each route names the offending key the same way. */
export function prototypeKeyReason(where: string): string {
  return `"${where}" is a reserved name (__proto__, constructor, prototype): it can't be a key or path segment here`;
}

/**
 * INVALID_QUERY for a query object (a parsed URL query, a SEARCH body's or a socket message's `query`) that the URL
 * parser marked or (unless `deep` is false) names a reserved key anywhere; null when it is clean.
 */
export function queryKeyError(raw: unknown, deep = true): InvalidQueryError | null {
  if (raw === null || typeof raw !== 'object') return null;
  const marked = (raw as { [REFUSED_QUERY_KEY]?: string })[REFUSED_QUERY_KEY];
  const path = marked ?? (deep ? refusedKeyPath(raw) : null);
  return path === null ? null : new InvalidQueryError(prototypeKeyReason(path));
}

/** INVALID_QUERY when a query parameter given as JSON text (`filter`, `deep`, `alias`, `aggregate`) names one. */
export function refuseQueryKeys(value: unknown, name: string): void {
  const path = refusedKeyPath(value, name);
  if (path !== null) throw new InvalidQueryError(prototypeKeyReason(path));
}
