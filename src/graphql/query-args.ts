/**
 * Arguments of a root or relational field (filter, sort, limit, offset, page, search) → the Query IR's parts, with
 * REST's rules (QUERY_LIMIT_MAX, INVALID_QUERY). GraphQL filter inputs are mapped onto the Directus filter grammar:
 * `<field>_func: {year: ...}` → `year(<field>)`, `item__<collection>` → `item:<collection>`.
 */
import { getNamedType, GraphQLInputObjectType, type GraphQLInputType } from 'graphql';
import { InvalidQueryError } from '../errors/catalogue.js';
import { searchTerm, sortFields } from '../request/input-bounds.js';
import { countedFilter } from '../request/parse-query.js';
import type { DeepQuery, SortClause } from '../request/query.js';
import type { FilterKey } from './collection-types.js';

export interface QueryArgOptions {
  queryLimitMax: number;
}

export function queryArgs(
  args: Record<string, unknown>,
  filterType: GraphQLInputType | undefined,
  options: QueryArgOptions,
): Omit<DeepQuery, 'deep' | 'alias'> {
  const parts: Omit<DeepQuery, 'deep' | 'alias'> = {};
  if (args.filter !== undefined && args.filter !== null) {
    const type = filterType ? getNamedType(filterType) : undefined;
    Object.assign(
      parts,
      countedFilter(
        type instanceof GraphQLInputObjectType
          ? toDirectusFilter(args.filter as Record<string, unknown>, type)
          : args.filter,
      ),
    );
  }
  if (Array.isArray(args.sort)) parts.sort = sortClauses(args.sort as (string | null)[]);
  if (typeof args.limit === 'number') parts.limit = limit(args.limit, options.queryLimitMax);
  if (typeof args.offset === 'number') parts.offset = atLeast(args.offset, 'offset', 0);
  if (typeof args.page === 'number') parts.page = Math.max(1, atLeast(args.page, 'page', 0));
  if (typeof args.search === 'string' && args.search !== '') parts.search = searchTerm(args.search, 'search');
  return parts;
}

export function sortClauses(sort: (string | null)[]): SortClause[] {
  return sortFields(sort)
    .filter((item): item is string => typeof item === 'string' && item.trim() !== '')
    .map((item) => item.trim())
    .map((item) =>
      item.startsWith('-') ? { field: item.slice(1), order: 'desc' as const } : { field: item, order: 'asc' as const },
    );
}

function atLeast(value: number, name: string, min: number): number {
  if (value < min) throw new InvalidQueryError(`"${name}" has to be ${min} or greater`);
  return value;
}

function limit(value: number, max: number): number {
  atLeast(value, 'limit', -1);
  if (max >= 0) {
    if (value === -1) return max;
    if (value > max) throw new InvalidQueryError(`"limit" can't be greater than ${max}`);
  }
  return value;
}

export function toDirectusFilter(
  value: Record<string, unknown>,
  type: GraphQLInputObjectType,
): Record<string, unknown> {
  const fields = type.getFields();
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    const field = fields[key];
    const how = field?.extensions?.strata as FilterKey | undefined;
    const innerType = field ? getNamedType(field.type) : undefined;
    const nested = (v: unknown) =>
      v && typeof v === 'object' && !Array.isArray(v) && innerType instanceof GraphQLInputObjectType
        ? toDirectusFilter(v as Record<string, unknown>, innerType)
        : v;
    if (!how) out[key] = inner;
    else if (how.kind === 'func')
      for (const [fn, ops] of Object.entries((inner ?? {}) as Record<string, unknown>))
        out[`${fn}(${how.field})`] = ops;
    else if (how.kind === 'rename') out[how.to] = nested(inner);
    else out[key] = Array.isArray(inner) ? inner.map(nested) : nested(inner);
  }
  return out;
}
