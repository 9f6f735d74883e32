/**
 * URL query (as parsed by qs) or SEARCH body `query` → Query IR (Directus docs: Query parameters). Pure; names are checked by the
 * planner. Unknown parameters are ignored, as Directus does.
 */
import { InvalidQueryError } from '../errors/catalogue.js';
import { splitFieldPath, splitTopLevel } from './field-path.js';
import { isJsonFunction, jsonPathDepth, parseJsonFunction } from './json-path.js';
import { filterDepth, parseQueryFilter } from './parse-filter.js';
import { safeInteger, searchTerm, sortFields } from './input-bounds.js';
import { queryKeyError, refuseQueryKeys } from './prototype-keys.js';
import type { DeepQuery, MetaKind, Query, SortClause } from './query.js';

export interface QueryParseOptions {
  /** -1 = unbounded. */
  queryLimitMax: number;
  maxRelationalDepth: number;
  /** Deepest path `json(field, path)` may read (MAX_JSON_QUERY_DEPTH; 10 when not given). */
  maxJsonQueryDepth?: number;
}

export function parseQuery(raw: Record<string, unknown>, options: QueryParseOptions): Query {
  // Keys of the query (and of its JSON-text parameters, checked where they are parsed) become keys of the IR's
  // objects (`deep`, `alias`, `aggregate`): none may be a prototype's name.
  const refused = queryKeyError(raw);
  if (refused) throw refused;
  const query: Query = {};
  if (raw.fields !== undefined) query.fields = parseList(raw.fields, 'fields', true);
  if (raw.filter !== undefined) Object.assign(query, countedFilter(raw.filter));
  if (raw.sort !== undefined) query.sort = parseSort(raw.sort);
  if (raw.limit !== undefined) query.limit = parseLimit(raw.limit, options.queryLimitMax);
  if (raw.offset !== undefined) query.offset = parseInteger(raw.offset, 'offset', 0);
  if (raw.page !== undefined) query.page = Math.max(1, parseInteger(raw.page, 'page', 0));
  if (raw.search !== undefined && typeof raw.search === 'string' && raw.search !== '')
    query.search = searchTerm(raw.search, 'search');
  if (raw.meta !== undefined) query.meta = parseMeta(raw.meta);
  // As in Directus, an empty `deep`, `alias`, `aggregate` or `groupBy` is no parameter at all.
  if (raw.deep !== undefined && raw.deep !== '') query.deep = parseDeep(deepObject(raw.deep), options, 'deep');
  if (raw.alias !== undefined && raw.alias !== '') query.alias = parseAlias(raw.alias);
  if (raw.aggregate !== undefined && raw.aggregate !== '') query.aggregate = parseAggregate(raw.aggregate);
  if (raw.groupBy !== undefined) {
    const groupBy = parseList(raw.groupBy, 'groupBy', true);
    if (groupBy.length) query.groupBy = groupBy;
  }
  checkDepth(query, options.maxRelationalDepth);
  checkJsonPaths(query, options.maxJsonQueryDepth ?? 10);
  return query;
}

function parseList(raw: unknown, name: string, parenAware: boolean): string[] {
  const items = typeof raw === 'string' ? [raw] : Array.isArray(raw) ? raw : null;
  if (!items || items.some((item) => typeof item !== 'string'))
    throw new InvalidQueryError(`"${name}" has to be a string or an array of strings`);
  return (items as string[])
    .flatMap((item) => (parenAware ? splitTopLevel(item, ',') : item.split(',')))
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function parseSort(raw: unknown): SortClause[] {
  return sortFields(parseList(raw, 'sort', true)).map((item) =>
    item.startsWith('-') ? { field: item.slice(1), order: 'desc' as const } : { field: item, order: 'asc' as const },
  );
}

/** Read as Directus reads it (`Number(text)`): `''` is 0, `1e2` and `5.0` are integers; `1.5` or `x` are not. */
function parseInteger(raw: unknown, name: string, min: number): number {
  const text = typeof raw === 'number' ? String(raw) : raw;
  if (typeof text !== 'string' || !Number.isInteger(Number(text)))
    throw new InvalidQueryError(`"${name}" has to be an integer`);
  const value = text.trim() === '' ? 0 : safeInteger(text.trim(), name);
  if (value < min) throw new InvalidQueryError(`"${name}" has to be ${min} or greater`);
  return value;
}

function parseLimit(raw: unknown, max: number, name = 'limit'): number {
  const limit = parseInteger(raw, name, -1);
  if (max >= 0) {
    if (limit === -1) return max;
    if (limit > max) throw new InvalidQueryError(`"${name}" can't be greater than ${max}`);
  }
  return limit;
}

function parseMeta(raw: unknown): MetaKind[] {
  const items = parseList(raw, 'meta', false);
  if (items.includes('*')) return ['total_count', 'filter_count'];
  for (const item of items) {
    if (item !== 'total_count' && item !== 'filter_count')
      throw new InvalidQueryError(`"meta" has to be total_count, filter_count or *, not "${item}"`);
  }
  return [...new Set(items)] as MetaKind[];
}

function parseObjectParam(raw: unknown, name: string): Record<string, unknown> {
  let value = raw;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      throw new InvalidQueryError(`Invalid JSON for ${name} object`);
    }
    refuseQueryKeys(value, name);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new InvalidQueryError(`"${name}" has to be an object`);
  return value as Record<string, unknown>;
}

/**
 * `deep` that is not an object, or not JSON, is ignored as Directus ignores it (it logs a warning); `filter`,
 * `alias` and `aggregate` stay errors there and here.
 */
function deepObject(raw: unknown): Record<string, unknown> {
  let value = raw;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return {};
    }
    refuseQueryKeys(value, 'deep');
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function parseAlias(raw: unknown): Record<string, string> {
  const alias = parseObjectParam(raw, 'alias');
  for (const [key, value] of Object.entries(alias)) {
    if (typeof value !== 'string') throw new InvalidQueryError(`"alias" values have to be strings ("${key}")`);
    // Alias keys are written into the SQL as JSON keys (string literals): no control characters.
    if (/[\u0000-\u001f]/.test(key) || /[\u0000-\u001f]/.test(value))
      throw new InvalidQueryError('"alias" keys and values can\'t contain control characters');
    if (key.includes('.') || (value.includes('.') && !isJsonFunction(value)))
      throw new InvalidQueryError(`"alias" keys and values can't contain a "." ("${key}")`);
  }
  return alias as Record<string, string>;
}

function parseAggregate(raw: unknown): Record<string, string[]> {
  const aggregate = parseObjectParam(raw, 'aggregate');
  const result: Record<string, string[]> = {};
  for (const [fn, fields] of Object.entries(aggregate)) result[fn] = parseList(fields, `aggregate[${fn}]`, false);
  return result;
}

/**
 * `deep` object → DeepQuery per relation; `_`-keys are that level's query, other keys are deeper relations. As in
 * Directus, what cannot be a level is ignored: unknown `_` parameters, `_` keys outside a relation, and relations
 * given something other than an object (the planner also ignores relations the read does not select).
 */
function parseDeep(
  raw: Record<string, unknown>,
  options: QueryParseOptions,
  at: string,
  depth = 1,
): Record<string, DeepQuery> {
  // Checked before recursing: a `deep` JSON string may nest as deep as the client likes.
  if (depth > options.maxRelationalDepth) throw new InvalidQueryError('Max relational depth exceeded');
  const result: Record<string, DeepQuery> = {};
  for (const [relation, value] of Object.entries(raw)) {
    if (relation.startsWith('_')) continue;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) continue;
    const level: DeepQuery = {};
    const children: Record<string, unknown> = {};
    for (const [key, param] of Object.entries(value as Record<string, unknown>)) {
      switch (key) {
        case '_filter':
          Object.assign(level, countedFilter(param));
          break;
        case '_sort':
          level.sort = parseSort(param);
          break;
        case '_limit':
          level.limit = parseLimit(param, options.queryLimitMax, `${at}[${relation}][_limit]`);
          break;
        case '_offset':
          level.offset = parseInteger(param, `${at}[${relation}][_offset]`, 0);
          break;
        case '_page':
          level.page = Math.max(1, parseInteger(param, `${at}[${relation}][_page]`, 0));
          break;
        case '_search':
          if (typeof param === 'string' && param !== '')
            level.search = searchTerm(param, `${at}[${relation}][_search]`);
          break;
        default:
          if (!key.startsWith('_')) children[key] = param;
      }
    }
    if (Object.keys(children).length) level.deep = parseDeep(children, options, `${at}[${relation}]`, depth + 1);
    result[relation] = level;
  }
  return result;
}

/**
 * A query's (or deep level's) `filter` from the filter as given, with `filterDepth` where the written filter is deeper
 * than the parsed one (it ends in an empty rule).
 */
export function countedFilter(input: unknown): Pick<Query, 'filter' | 'filterDepth'> {
  const { filter, depth } = parseQueryFilter(input);
  return depth > filterDepth(filter) ? { filter, filterDepth: depth } : { filter };
}

/** The relational depth a query's (or deep level's) filter counts: as written where that is known. */
function writtenFilterDepth(level: Pick<Query, 'filter' | 'filterDepth'>): number {
  return Math.max(filterDepth(level.filter), level.filterDepth ?? 0);
}

function deepDepth(deep: Record<string, DeepQuery> | undefined): number {
  if (!deep) return 0;
  return Math.max(
    0,
    ...Object.values(deep).map(
      (level) =>
        1 +
        Math.max(
          deepDepth(level.deep),
          writtenFilterDepth(level),
          ...(level.sort ?? []).map((s) => splitFieldPath(s.field).length),
        ),
    ),
  );
}

/** Relational depth of a path; `json(a.b, path)` counts the segments of its first argument (its JSON path not). */
export function pathDepth(path: string): number {
  const segments = splitFieldPath(path);
  const last = segments[segments.length - 1]!;
  if (!isJsonFunction(last)) return segments.length;
  return segments.length - 1 + splitFieldPath(parseJsonFunction(last).field).length;
}

function checkJsonPaths(query: Query, max: number): void {
  const calls = [
    ...(query.fields ?? []).map((p) => splitFieldPath(p).pop()!),
    ...Object.values(query.alias ?? {}),
  ].filter(isJsonFunction);
  for (const call of calls) {
    const depth = jsonPathDepth(parseJsonFunction(call));
    if (depth > max)
      throw new InvalidQueryError(`JSON path depth exceeds maximum allowed depth of ${max} (got ${depth})`);
  }
}

/**
 * MAX_RELATIONAL_DEPTH as Directus counts it: dot segments of each field and sort path, relational levels of the
 * filter as written (an empty rule included) and of `deep` (its `_filter` keys not counted, the fields under them
 * counted). An aggregate read selects no fields (its `groupBy` paths count instead), as in Directus. GraphQL checks
 * the Query IR of its selections here too, with `selectedDepth`: its selections' depth as Directus turns them into
 * `fields` paths (the IR's fields are shaped for reading: an o2m of keys only is one segment there).
 */
export function checkDepth(query: Query, max: number, selectedDepth?: number): void {
  const selected =
    query.groupBy ?? (query.aggregate && Object.keys(query.aggregate).length ? [] : (query.fields ?? []));
  const fieldsDepth =
    selectedDepth !== undefined && !query.groupBy ? selectedDepth : Math.max(0, ...selected.map(pathDepth));
  const sortDepth = Math.max(0, ...(query.sort ?? []).map((s) => pathDepth(s.field)));
  const deepest = Math.max(fieldsDepth, sortDepth, writtenFilterDepth(query), deepDepth(query.deep));
  if (deepest > max) throw new InvalidQueryError('Max relational depth exceeded');
}
