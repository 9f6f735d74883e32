/**
 * The URL query parser (qs, with QUERYSTRING_* bounds), remembering what it parsed: clients repeat the same query
 * strings, and a repeated string gives the same object again, deep-frozen so that no request can change what the
 * next one reads. Being the same object also lets the routes keep what they derive from it (the Query IR, its cache
 * key text) in WeakMaps. Strings with an access token are parsed each time (no token is kept beyond its request).
 *
 * Keys are paths (`filter[author][name][_eq]`): a segment naming `__proto__`, `constructor` or `prototype` makes the
 * whole query a refused one (`REFUSED_QUERY_KEY`, answered INVALID_QUERY). qs on its own drops every parameter with a
 * segment that `Object.prototype` has (`__proto__`, but also `toString`, `valueOf`...) without a word, which silently
 * removed a filter on a field named so; `allowPrototypes` keeps those as the plain own keys they are.
 */
import { Cache } from '../cache/cache.js';
import qs from 'qs';
import { isPrototypeKey, REFUSED_QUERY_KEY } from '../request/prototype-keys.js';

/** Distinct query strings kept, and the longest one kept (longer ones are rare and parsed each time). */
const KEPT = 1000;
const KEPT_LENGTH = 4096;

export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

export function queryStringParser(options: {
  depth: number;
  arrayLimit: number;
}): (text: string) => Record<string, unknown> {
  const parse = (text: string): Record<string, unknown> => {
    let refused: string | null = null;
    const parsed = qs.parse(text, {
      ...options,
      allowPrototypes: true,
      decoder(part, decode, charset, type) {
        const decoded = decode(part, decode, charset) as string;
        if (type === 'key' && refused === null && decoded.split(/[[\].]/).some(isPrototypeKey)) refused = decoded;
        return decoded;
      },
    }) as Record<string, unknown>;
    return refused === null ? parsed : { [REFUSED_QUERY_KEY]: refused };
  };
  const kept = new Cache<string, Record<string, unknown>>('query-strings', { max: KEPT });
  return (text) => {
    if (text.length > KEPT_LENGTH || text.includes('access_token')) return parse(text);
    let parsed = kept.get(text);
    if (!parsed) kept.set(text, (parsed = deepFreeze(parse(text))));
    return parsed;
  };
}
