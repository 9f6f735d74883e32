/**
 * The Directus filter grammar → FilterNode (Directus docs: Filter rules). Pure: field names are checked later by the planner.
 */
import { InvalidQueryError } from '../errors/catalogue.js';
import { MAX_FILTER_DEPTH, queryText } from './input-bounds.js';
import { emptyRecord, refuseQueryKeys } from './prototype-keys.js';
import {
  FILTER_OPERATORS,
  type DynamicValue,
  type FilterNode,
  type FilterOperator,
  type FilterValue,
  type ScalarValue,
} from './query.js';

const OPERATORS = new Set<string>(FILTER_OPERATORS);
const UNSUPPORTED_IN_QUERIES = new Set([
  '_regex',
  '_submitted',
  '_json',
  '_intersects',
  '_nintersects',
  '_intersects_bbox',
  '_nintersects_bbox',
]);
const LIST_OPERATORS = new Set(['_in', '_nin']);
const RANGE_OPERATORS = new Set(['_between', '_nbetween']);
const FLAG_OPERATORS = new Set(['_null', '_nnull', '_empty', '_nempty']);

const UNIT_MS: Record<string, number> = {
  ms: 1,
  millisecond: 1,
  milliseconds: 1,
  s: 1000,
  sec: 1000,
  second: 1000,
  seconds: 1000,
  m: 60_000,
  min: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
  w: 604_800_000,
  week: 604_800_000,
  weeks: 604_800_000,
  month: 2_592_000_000,
  months: 2_592_000_000,
  y: 31_536_000_000,
  year: 31_536_000_000,
  years: 31_536_000_000,
};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `filter` as given (object, or JSON string) → FilterNode, or null when empty. */
export function parseFilter(input: unknown): FilterNode | null {
  const value = filterObject(input);
  return value ? parseObject(value, [], 1) : null;
}

/** `filter` as given → its FilterNode and its relational depth as written (`writtenDepth`), for a query's IR. */
export function parseQueryFilter(input: unknown): { filter: FilterNode | null; depth: number } {
  const value = filterObject(input);
  if (!value) return { filter: null, depth: 0 };
  const filter = parseObject(value, [], 1);
  // Parsed first: a rule nested past MAX_FILTER_DEPTH is refused before it is walked again.
  return { filter, depth: writtenDepth(value) };
}

function filterObject(input: unknown): Record<string, unknown> | null {
  if (input === undefined || input === null || input === '') return null;
  let value = input;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      throw new InvalidQueryError('Invalid JSON for filter object');
    }
    refuseQueryKeys(value, 'filter');
  }
  if (!isPlainObject(value)) throw new InvalidQueryError('"filter" has to be an object');
  return value;
}

/**
 * The relational depth of a filter as written, as Directus counts it for MAX_RELATIONAL_DEPTH: every key that is
 * no operator is a level, its rule counted below it — an empty rule (`{author: {}}`) too, which the parsed filter
 * drops; `_and` / `_or` items and `_some` / `_none` rules add no level of their own; other operators hold values.
 */
function writtenDepth(rule: Record<string, unknown>): number {
  let depth = 0;
  for (const [key, value] of Object.entries(rule)) {
    if (key === '_and' || key === '_or') {
      const items = Array.isArray(value) ? value : isPlainObject(value) ? Object.values(value) : [];
      for (const item of items) if (isPlainObject(item)) depth = Math.max(depth, writtenDepth(item));
    } else if (key === '_some' || key === '_none') {
      if (isPlainObject(value)) depth = Math.max(depth, writtenDepth(value));
    } else if (!key.startsWith('_')) {
      depth = Math.max(depth, 1 + (isPlainObject(value) ? writtenDepth(value) : 0));
    }
  }
  return depth;
}

/** `depth` counts the objects around this one; it is checked before recursing, so no nesting overflows the stack. */
function parseObject(object: Record<string, unknown>, path: string[], depth: number): FilterNode | null {
  if (depth > MAX_FILTER_DEPTH)
    throw new InvalidQueryError(`"filter" can't be nested more than ${MAX_FILTER_DEPTH} levels deep`);
  const nodes: FilterNode[] = [];
  for (const [key, value] of Object.entries(object)) {
    const node = parseEntry(key, value, path, depth);
    if (node) nodes.push(node);
  }
  if (nodes.length === 0) return null;
  return nodes.length === 1 ? nodes[0]! : { type: 'logical', operator: '_and', children: nodes };
}

function parseEntry(key: string, value: unknown, path: string[], depth: number): FilterNode | null {
  if (key === '_and' || key === '_or') {
    const list =
      isPlainObject(value) && Object.keys(value).every((k) => /^\d+$/.test(k)) ? Object.values(value) : value;
    if (!Array.isArray(list)) throw new InvalidQueryError(`"${key}" has to be an array`);
    const children = list.map((child) => {
      if (!isPlainObject(child)) throw new InvalidQueryError(`Every item of "${key}" has to be an object`);
      return parseObject(child, path, depth + 1);
    });
    const kept = children.filter((c): c is FilterNode => c !== null);
    return kept.length ? { type: 'logical', operator: key, children: kept } : null;
  }
  if (key.startsWith('_')) {
    if (UNSUPPORTED_IN_QUERIES.has(key))
      throw new InvalidQueryError(`Filter operator "${key}" can't be used in queries`);
    if (key === '_some' || key === '_none') throw new InvalidQueryError(`"${key}" has to follow a relational field`);
    throw new InvalidQueryError(`Unknown filter operator "${key}"`);
  }
  return parseField(key, value, [...path, key], depth);
}

function parseField(field: string, value: unknown, path: string[], depth: number): FilterNode | null {
  if (!isPlainObject(value)) {
    return { type: 'condition', field, operator: '_eq', value: scalar(value, '_eq') };
  }
  const keys = Object.keys(value);
  if (keys.length === 0) return null;
  const operatorKeys = keys.filter((k) => k.startsWith('_') && k !== '_and' && k !== '_or');

  // A relation: nested field rules, optionally quantified.
  if (operatorKeys.length === 0 || operatorKeys.every((k) => k === '_some' || k === '_none')) {
    const nodes: FilterNode[] = [];
    // Unquantified keys describe one related row together (`{articles: {status: .., rating: ..}}` is one _some).
    const together: Record<string, unknown> = emptyRecord();
    for (const key of keys) {
      if (key === '_some' || key === '_none') {
        const inner = value[key];
        if (!isPlainObject(inner)) throw new InvalidQueryError(`"${key}" of "${field}" has to be an object`);
        const filter = parseObject(inner, path, depth + 1);
        if (filter) nodes.push({ type: 'relation', field, quantifier: key, filter });
      } else {
        together[key] = value[key];
      }
    }
    const filter = parseObject(together, path, depth + 1);
    if (filter) nodes.unshift({ type: 'relation', field, quantifier: null, filter });
    if (nodes.length === 0) return null;
    return nodes.length === 1 ? nodes[0]! : { type: 'logical', operator: '_and', children: nodes };
  }

  const nodes: FilterNode[] = [];
  for (const key of keys) {
    if (!key.startsWith('_'))
      throw new InvalidQueryError(`Field rules of "${field}" can't mix operators and nested fields ("${key}")`);
    if (UNSUPPORTED_IN_QUERIES.has(key))
      throw new InvalidQueryError(`Filter operator "${key}" can't be used in queries`);
    if (!OPERATORS.has(key)) throw new InvalidQueryError(`Unknown filter operator "${key}"`);
    const operator = key as FilterOperator;
    nodes.push({ type: 'condition', field, operator, value: operand(operator, value[key]) });
  }
  return nodes.length === 1 ? nodes[0]! : { type: 'logical', operator: '_and', children: nodes };
}

function operand(operator: FilterOperator, raw: unknown): FilterValue {
  if (LIST_OPERATORS.has(operator)) {
    const list = toList(raw, operator);
    if (list.length === 0) throw new InvalidQueryError(`"${operator}" has to be an array of values`);
    return list.map((v) => scalar(v, operator));
  }
  if (RANGE_OPERATORS.has(operator)) {
    const list = toList(raw, operator);
    if (list.length !== 2) throw new InvalidQueryError(`"${operator}" has to be an array of two values`);
    return list.map((v) => scalar(v, operator));
  }
  if (FLAG_OPERATORS.has(operator)) return flag(raw, operator);
  return scalar(raw, operator);
}

function toList(raw: unknown, operator: string): unknown[] {
  if (Array.isArray(raw)) return raw;
  // qs turns long index lists into objects keyed by index.
  if (isPlainObject(raw) && Object.keys(raw).every((k) => /^\d+$/.test(k))) return Object.values(raw);
  if (typeof raw === 'string') return raw === '' ? [] : raw.split(',').map((s) => s.trim());
  if (typeof raw === 'number' || typeof raw === 'boolean') return [raw];
  throw new InvalidQueryError(`"${operator}" has to be an array of values`);
}

function flag(raw: unknown, operator: string): boolean {
  if (raw === undefined || raw === '' || raw === true || raw === 'true' || raw === 1 || raw === '1') return true;
  if (raw === false || raw === 'false' || raw === 0 || raw === '0') return false;
  throw new InvalidQueryError(`The filter value for "${operator}" has to be a boolean`);
}

function scalar(raw: unknown, operator: string): ScalarValue {
  if (raw === null) return null;
  if (typeof raw === 'number') {
    if (!Number.isFinite(raw))
      throw new InvalidQueryError(`The filter value for "${operator}" has to be a finite number`);
    return raw;
  }
  if (typeof raw === 'boolean') return raw;
  if (typeof raw !== 'string')
    throw new InvalidQueryError(`The filter value for "${operator}" has to be a string, number, or boolean`);
  if (raw === '')
    throw new InvalidQueryError(`The filter value for "${operator}" can't be empty. Use "_empty" or "_nempty" instead`);
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (raw === 'null' || raw === 'NULL') return null;
  queryText(raw, 'filter');
  if (raw.startsWith('$')) return parseDynamic(raw) ?? raw;
  return raw;
}

/** `$NOW`, `$NOW(-1 year)`, `$CURRENT_USER[.path]`, `$CURRENT_ROLE[.path]`, `$CURRENT_ROLES`, `$CURRENT_POLICIES`; other `$` strings stay plain strings. */
export function parseDynamic(raw: string): DynamicValue | null {
  if (raw === '$CURRENT_USER') return { dynamic: 'CURRENT_USER' };
  if (raw === '$CURRENT_ROLE') return { dynamic: 'CURRENT_ROLE' };
  if (raw === '$CURRENT_ROLES') return { dynamic: 'CURRENT_ROLES' };
  if (raw === '$CURRENT_POLICIES') return { dynamic: 'CURRENT_POLICIES' };
  for (const [prefix, dynamic] of [
    ['$CURRENT_USER.', 'CURRENT_USER'],
    ['$CURRENT_ROLE.', 'CURRENT_ROLE'],
  ] as const) {
    if (!raw.startsWith(prefix)) continue;
    const path = raw.slice(prefix.length).split('.');
    if (path.some((segment) => !/^[A-Za-z_][\w-]*$/.test(segment)))
      throw new InvalidQueryError(`Invalid dynamic variable "${raw}"`);
    return { dynamic, path };
  }
  if (raw === '$NOW') return { dynamic: 'NOW', offsetMs: 0 };
  const match = /^\$NOW\(\s*([+-]?)\s*(\d+(?:\.\d+)?)\s*([a-z]+)\s*\)$/i.exec(raw);
  if (!match) {
    if (raw.startsWith('$NOW('))
      throw new InvalidQueryError(`Invalid dynamic variable "${raw}"; use e.g. $NOW(-1 year)`);
    return null;
  }
  const unit = UNIT_MS[match[3]!.toLowerCase()];
  if (unit === undefined) throw new InvalidQueryError(`Unknown time unit "${match[3]}" in "${raw}"`);
  const sign = match[1] === '-' ? -1 : 1;
  return { dynamic: 'NOW', offsetMs: sign * Number(match[2]) * unit };
}

/** The deepest relational nesting of a filter (a plain field rule is depth 1). */
export function filterDepth(node: FilterNode | null | undefined): number {
  if (!node) return 0;
  switch (node.type) {
    case 'logical':
      return Math.max(0, ...node.children.map(filterDepth));
    case 'condition':
      return 1;
    case 'relation':
      return 1 + filterDepth(node.filter);
  }
}

/** The `$CURRENT_USER.<path>` / `$CURRENT_ROLE.<path>` variables a filter uses, as written (for loading their values). */
export function dynamicPaths(node: FilterNode | null | undefined): string[] {
  const found = new Set<string>();
  const visit = (n: FilterNode) => {
    if (n.type === 'logical') n.children.forEach(visit);
    else if (n.type === 'relation') visit(n.filter);
    else {
      for (const v of Array.isArray(n.value) ? n.value : [n.value]) {
        if (v && typeof v === 'object' && (v.dynamic === 'CURRENT_USER' || v.dynamic === 'CURRENT_ROLE') && v.path) {
          found.add(`$${v.dynamic}.${v.path.join('.')}`);
        }
      }
    }
  };
  if (node) visit(node);
  return [...found];
}
