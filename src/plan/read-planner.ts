/**
 * Query IR + schema + accountability → ReadPlan (pure). Unknown collections and fields fail here with FORBIDDEN,
 * bad values with INVALID_QUERY. Permissions: admins read everything; everyone else is refused until the
 * permissions issue adds policy rules here (the accountability already flows through).
 */
import { collectionForbidden, fieldForbidden, ForbiddenError, InvalidQueryError } from '../errors/catalogue.js';
import type { Accountability } from '../permissions/accountability.js';
import { parseFieldFunction, splitFieldPath } from '../request/field-path.js';
import type { FilterNode, FilterValue, Query, ScalarValue } from '../request/query.js';
import type { CollectionOverview, FieldOverview, SchemaOverview } from '../schema/types.js';
import type { PlannedField, PlannedFilter, PlannedSort, ReadPlan } from './read-plan.js';
import { coerceKey, coerceValue, isUuid } from './value-coercion.js';

export interface PlanContext {
  schema: SchemaOverview;
  accountability: Accountability;
  queryLimitDefault: number;
  now: Date;
  /** Read one object: by key (`query.keys` holds it) or a singleton. */
  single?: boolean;
}

const TEXT_OPERATORS = new Set(['_contains', '_ncontains', '_icontains', '_nicontains', '_starts_with', '_nstarts_with', '_istarts_with', '_nistarts_with', '_ends_with', '_nends_with', '_iends_with', '_niends_with', '_ieq', '_nieq']);

export function planRead(collectionName: string, query: Query, ctx: PlanContext): ReadPlan {
  const collection = ctx.schema.collections[collectionName];
  if (!collection || collection.system || !collection.schema) throw collectionForbidden(collectionName);
  if (!ctx.accountability.admin) throw collectionForbidden(collectionName);

  const fields = planFields(collection, query.fields ?? ['*']);
  const filters: PlannedFilter[] = [];
  if (query.filter) filters.push(planFilter(collection, query.filter, ctx));
  if (query.search) filters.push(planSearch(collection, query.search));
  if (query.keys) filters.push(planKeys(collection, query.keys));

  const single = ctx.single ?? false;
  const limit = single ? 1 : query.limit === undefined ? ctx.queryLimitDefault : query.limit === -1 ? null : query.limit;
  let offset = query.offset ?? 0;
  if (query.page && limit !== null && !single) offset += limit * (query.page - 1);

  return {
    collection,
    table: collection.schema.name,
    fields,
    accessFilter: null,
    filter: filters.length === 0 ? null : filters.length === 1 ? filters[0]! : { kind: 'and', children: filters },
    sort: single ? [] : planSort(collection, query),
    limit,
    offset: single ? 0 : offset,
    meta: { totalCount: query.meta?.includes('total_count') ?? false, filterCount: query.meta?.includes('filter_count') ?? false },
    single,
  };
}

function fieldOf(collection: CollectionOverview, name: string): FieldOverview {
  const path = splitFieldPath(name);
  const { fn, field: base } = parseFieldFunction(path[0]!);
  const field = collection.fields[base];
  if (!field) throw fieldForbidden(base, collection.collection);
  // Relational paths, function fields and alias fields arrive with nested reads; until then they are unreadable.
  if (path.length > 1 || fn || field.type === 'alias' || !field.schema) throw unsupported(name, collection.collection);
  return field;
}

function unsupported(name: string, collection: string): ForbiddenError {
  return new ForbiddenError(`Field "${name}" in collection "${collection}" can't be read: relational paths, alias and function fields are not supported yet.`);
}

function planFields(collection: CollectionOverview, requested: string[]): PlannedField[] {
  const out: PlannedField[] = [];
  const seen = new Set<string>();
  const add = (field: FieldOverview) => {
    if (seen.has(field.field)) return;
    seen.add(field.field);
    out.push({ key: field.field, field });
  };
  for (const name of requested.length ? requested : ['*']) {
    if (name === '*') {
      for (const key of collection.fieldOrder) {
        const field = collection.fields[key]!;
        if (field.schema && field.type !== 'alias') add(field);
      }
    } else {
      add(fieldOf(collection, name));
    }
  }
  return out;
}

function planSort(collection: CollectionOverview, query: Query): PlannedSort[] {
  if (query.sort && query.sort.length) {
    return query.sort.map((clause) => ({ field: fieldOf(collection, clause.field), descending: clause.order === 'desc' }));
  }
  const fallback = collection.sortField ?? collection.primary;
  return fallback && collection.fields[fallback]?.schema ? [{ field: collection.fields[fallback]!, descending: false }] : [];
}

function planKeys(collection: CollectionOverview, keys: (string | number)[]): PlannedFilter {
  const primary = collection.primary ? collection.fields[collection.primary] : undefined;
  if (!primary) throw new ForbiddenError();
  const coerced = keys.map((key) => coerceKey(primary, key)).filter((key): key is string | number => key !== null);
  if (coerced.length === 0) return { kind: 'constant', value: false };
  return { kind: 'compare', field: primary, operator: '_in', value: coerced };
}

function planSearch(collection: CollectionOverview, term: string): PlannedFilter {
  const children: PlannedFilter[] = [];
  const trimmed = term.trim();
  for (const key of collection.fieldOrder) {
    const field = collection.fields[key]!;
    if (!field.searchable) continue;
    if (field.type === 'string' || field.type === 'text') {
      children.push({ kind: 'compare', field, operator: '_icontains', value: term.toLowerCase() });
    } else if (field.type === 'uuid') {
      if (isUuid(trimmed)) children.push({ kind: 'compare', field, operator: '_eq', value: trimmed.toLowerCase() });
    } else if (/^[-+]?(\d+\.?\d*|\.\d+)$/.test(trimmed)) {
      if ((field.type === 'integer' || field.type === 'bigInteger') && !/^[-+]?\d+$/.test(trimmed)) continue;
      if (field.type === 'integer' && !Number.isSafeInteger(Number(trimmed))) continue;
      children.push({ kind: 'compare', field, operator: '_eq', value: coerceValue(field, trimmed) });
    }
  }
  return children.length ? { kind: 'or', children } : { kind: 'constant', value: false };
}

function planFilter(collection: CollectionOverview, node: FilterNode, ctx: PlanContext): PlannedFilter {
  switch (node.type) {
    case 'logical':
      return { kind: node.operator === '_and' ? 'and' : 'or', children: node.children.map((child) => planFilter(collection, child, ctx)) };
    case 'relation': {
      const base = parseFieldFunction(node.field).field;
      if (!collection.fields[base]) throw fieldForbidden(base, collection.collection);
      throw unsupported(node.field, collection.collection);
    }
    case 'condition': {
      const field = fieldOf(collection, node.field);
      return { kind: 'compare', field, operator: node.operator, value: planValue(field, node.operator, node.value, ctx) };
    }
  }
}

function planValue(field: FieldOverview, operator: string, value: FilterValue, ctx: PlanContext): unknown {
  if (operator === '_null' || operator === '_nnull' || operator === '_empty' || operator === '_nempty') return value;
  const one = (v: ScalarValue) => {
    const resolved = resolveDynamic(v, ctx);
    if (resolved === null) return null;
    // Text operators compare the text of any column; case-insensitive ones compare lower-cased text.
    if (TEXT_OPERATORS.has(operator)) {
      const text = resolved instanceof Date ? resolved.toISOString() : String(resolved);
      return operator.includes('_i') || operator.startsWith('_ni') ? text.toLowerCase() : text;
    }
    return coerceValue(field, resolved);
  };
  if (Array.isArray(value)) {
    const values = value.map(one);
    if ((operator === '_between' || operator === '_nbetween') && values.some((v) => v === null)) {
      throw new InvalidQueryError(`"${operator}" of field "${field.field}" can't have null bounds`);
    }
    return operator === '_in' || operator === '_nin' ? values.filter((v) => v !== null) : values;
  }
  const single = one(value);
  if (single === null && !['_eq', '_neq'].includes(operator)) {
    throw new InvalidQueryError(`"${operator}" of field "${field.field}" can't compare with null`);
  }
  return single;
}

function resolveDynamic(value: ScalarValue, ctx: PlanContext): string | number | boolean | Date | null {
  if (value === null || typeof value !== 'object') return value;
  switch (value.dynamic) {
    case 'NOW':
      return new Date(ctx.now.getTime() + value.offsetMs);
    case 'CURRENT_USER':
      return ctx.accountability.user;
    case 'CURRENT_ROLE':
      return ctx.accountability.role;
  }
}
