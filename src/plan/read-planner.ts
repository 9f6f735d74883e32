/**
 * Query IR + schema + accountability → ReadPlan (pure). Unknown collections and fields fail here with FORBIDDEN,
 * bad values with INVALID_QUERY. Permissions: admins read everything; everyone else is refused until the
 * permissions issue adds policy rules here (each level carries its own `accessFilter` slot for them).
 */
import { collectionForbidden } from '../errors/catalogue.js';
import type { Accountability } from '../permissions/accountability.js';
import type { DeepQuery, Query, SortClause } from '../request/query.js';
import type { CollectionOverview, SchemaOverview } from '../schema/types.js';
import { planAggregate } from './aggregate-planner.js';
import { planSelection, type ChildRequest } from './field-selection.js';
import { and, planFilter, planKeys, planSearch, type FilterContext } from './filter-planner.js';
import { resolvePath } from './operands.js';
import type { PlannedFilter, PlannedSort, ReadLevel, ReadPlan } from './read-plan.js';

export interface PlanContext {
  schema: SchemaOverview;
  accountability: Accountability;
  queryLimitDefault: number;
  now: Date;
  /** Read one object: by key (`query.keys` holds it) or a singleton. */
  single?: boolean;
}

export function planRead(collectionName: string, query: Query, ctx: PlanContext): ReadPlan {
  const collection = readableCollection(ctx, collectionName);
  const single = ctx.single ?? false;

  const filter = and([
    query.filter ? planFilter(collection, query.filter, ctx) : null,
    query.search ? planSearch(collection, query.search) : null,
    query.keys ? planKeys(collection, query.keys) : null,
  ]);
  const meta = { totalCount: query.meta?.includes('total_count') ?? false, filterCount: query.meta?.includes('filter_count') ?? false };
  const limit = single ? 1 : query.limit === undefined ? ctx.queryLimitDefault : query.limit === -1 ? null : query.limit;
  let offset = query.offset ?? 0;
  if (query.page && limit !== null && !single) offset += limit * (query.page - 1);
  const base = { collection, table: collection.schema!.name, accessFilter: accessFilter(collection, ctx), filter, limit, offset: single ? 0 : offset, meta, single };

  if (query.aggregate || query.groupBy) {
    const aggregate = planAggregate(ctx.schema, collection, query);
    return { ...base, filter: and([base.accessFilter, filter]), outputs: [], sort: [], aggregate };
  }

  const outputs = planSelection(ctx.schema, collection, query.fields?.length ? query.fields : ['*'], query.deep, 'root', (request) => planChild(ctx, request), query.alias);
  const sort = single ? [] : query.sort?.length ? planSort(ctx, collection, query.sort, 'root') : defaultSort(collection, null);
  return { ...base, filter: and([base.accessFilter, filter]), outputs, sort, aggregate: null };
}

function readableCollection(ctx: PlanContext, name: string): CollectionOverview {
  const collection = ctx.schema.collections[name];
  if (!collection || collection.system || !collection.schema) throw collectionForbidden(name);
  if (!ctx.accountability.admin) throw collectionForbidden(name);
  return collection;
}

/** The rows of `collection` the caller may read at all; null = every row (admins). */
function accessFilter(collection: CollectionOverview, ctx: PlanContext): PlannedFilter | null {
  if (!ctx.accountability.admin) throw collectionForbidden(collection.collection);
  return null;
}

function planChild(ctx: PlanContext, request: ChildRequest): ReadLevel {
  const { join, deep } = request;
  const collection = join.collection;
  const access = accessFilter(collection, ctx);
  const outputs = planSelection(ctx.schema, collection, request.fields, deep?.deep, request.where, (child) => planChild(ctx, child));
  const filter = and([access, deep?.filter ? planFilter(collection, deep.filter, ctx as FilterContext, request.where) : null, deep?.search ? planSearch(collection, deep.search) : null]);
  if (request.shape === 'object') {
    return { collection, table: join.table, outputs, accessFilter: access, filter, sort: [], limit: null, offset: 0 };
  }
  return { collection, table: join.table, outputs, accessFilter: access, filter, ...listWindow(ctx, collection, deep, request) };
}

/** o2m lists: sorted (deep `_sort`, the relation's sort field, the collection's, its key) and limited per parent. */
function listWindow(ctx: PlanContext, collection: CollectionOverview, deep: DeepQuery | undefined, request: ChildRequest): Pick<ReadLevel, 'sort' | 'limit' | 'offset'> {
  const limit = deep?.limit === undefined ? ctx.queryLimitDefault : deep.limit === -1 ? null : deep.limit;
  let offset = deep?.offset ?? 0;
  if (deep?.page && limit !== null) offset += limit * (deep.page - 1);
  const sort = deep?.sort?.length ? planSort(ctx, collection, deep.sort, request.where) : defaultSort(collection, request.sortField);
  return { sort, limit, offset };
}

function planSort(ctx: PlanContext, collection: CollectionOverview, clauses: SortClause[], where: string): PlannedSort[] {
  return clauses.map((clause) => {
    const resolved = resolvePath(ctx.schema, collection, clause.field, where);
    return { operand: resolved.operand, field: resolved.field, descending: clause.order === 'desc' };
  });
}

function defaultSort(collection: CollectionOverview, relationSortField: string | null): PlannedSort[] {
  const name = relationSortField ?? collection.sortField ?? collection.primary;
  const field = name ? collection.fields[name] : undefined;
  return field?.schema ? [{ operand: { kind: 'field', field }, field, descending: false }] : [];
}
