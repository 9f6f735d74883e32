/**
 * Query IR + schema + the caller's access → ReadPlan (pure). Unknown collections and fields — and those the caller
 * may not read, which look the same — fail here with FORBIDDEN, bad values with INVALID_QUERY. Every level carries
 * the caller's row filter for its collection, and outputs carry field guards where only some rules grant a field.
 */
import { collectionForbidden, InvalidQueryError } from '../errors/catalogue.js';
import type { AccessPolicy } from './access.js';
import type { Accountability } from '../permissions/accountability.js';
import type { DeepQuery, Query, SortClause } from '../request/query.js';
import type { CollectionOverview, SchemaOverview } from '../schema/types.js';
import { planAggregate } from './aggregate-planner.js';
import { planSelection, type ChildRequest } from './field-selection.js';
import { and, planFilter, planKeys, planSearch } from './filter-planner.js';
import { accessTo, resolvePath } from './operands.js';
import type { PlannedSort, ReadLevel, ReadPlan } from './read-plan.js';

export interface ReadPlanContext {
  schema: SchemaOverview;
  /** What the caller may read (FULL_ACCESS for admins; see policy-access.ts). */
  access: AccessPolicy;
  accountability: Accountability;
  queryLimitDefault: number;
  now: Date;
  /** Read one object: by key (`query.keys` holds it) or a singleton. */
  single?: boolean;
  /** Values of `$CURRENT_USER.<path>` / `$CURRENT_ROLE.<path>`, loaded before planning. */
  dynamic?: ReadonlyMap<string, unknown>;
  /** Internal reads of service_* tables (users for $CURRENT_USER paths, system routes): allowed here only. */
  system?: boolean;
}

export function planRead(collectionName: string, query: Query, ctx: ReadPlanContext): ReadPlan {
  const collection = readableCollection(ctx, collectionName);
  const single = ctx.single ?? false;

  const filter = and([
    query.filter ? planFilter(collection, query.filter, ctx) : null,
    query.search ? planSearch(ctx, collection, query.search) : null,
    query.keys ? planKeys(collection, query.keys) : null,
  ]);
  const meta = {
    totalCount: query.meta?.includes('total_count') ?? false,
    filterCount: query.meta?.includes('filter_count') ?? false,
  };
  const limit = single
    ? 1
    : query.limit === undefined
      ? ctx.queryLimitDefault
      : query.limit === -1
        ? null
        : query.limit;
  let offset = query.offset ?? 0;
  if (query.page && limit !== null && !single) offset = pageOffset(offset, limit, query.page, 'page');
  const base = {
    collection,
    table: collection.schema!.name,
    accessFilter: ctx.access.read(collection)!.filter,
    filter,
    limit,
    offset: single ? 0 : offset,
    meta,
    single,
  };

  if (query.aggregate || query.groupBy) {
    const aggregate = planAggregate(ctx, collection, query);
    return { ...base, filter: and([base.accessFilter, filter]), outputs: [], sort: [], aggregate };
  }

  const outputs = planSelection(
    ctx,
    collection,
    query.fields?.length ? query.fields : ['*'],
    query.deep,
    'root',
    (request) => planChild(ctx, request),
    query.alias,
  );
  const sort = single
    ? []
    : query.sort?.length
      ? planSort(ctx, collection, query.sort, 'root')
      : defaultSort(ctx, collection, null);
  return { ...base, filter: and([base.accessFilter, filter]), outputs, sort, aggregate: null };
}

/** The offset of a page; one beyond 2^53 would reach the SQL as `1e+23`. */
function pageOffset(offset: number, limit: number, page: number, name: string): number {
  const value = offset + limit * (page - 1);
  if (!Number.isSafeInteger(value)) throw new InvalidQueryError(`"${name}" is too large for this "limit"`);
  return value;
}

function readableCollection(ctx: ReadPlanContext, name: string): CollectionOverview {
  const collection = ctx.schema.collections[name];
  if (!collection || !collection.schema || (collection.system && !ctx.system)) throw collectionForbidden(name);
  if (!ctx.access.read(collection)) throw collectionForbidden(name);
  return collection;
}

function planChild(ctx: ReadPlanContext, request: ChildRequest): ReadLevel {
  const { join, deep } = request;
  const collection = join.collection;
  const access = accessTo(ctx, collection).filter;
  const outputs = planSelection(
    ctx,
    collection,
    request.fields,
    deep?.deep,
    request.where,
    (child) => planChild(ctx, child),
    deep?.alias,
  );
  const filter = and([
    access,
    deep?.filter ? planFilter(collection, deep.filter, ctx, request.where) : null,
    deep?.search ? planSearch(ctx, collection, deep.search) : null,
  ]);
  if (request.shape === 'object') {
    return { collection, table: join.table, outputs, accessFilter: access, filter, sort: [], limit: null, offset: 0 };
  }
  return {
    collection,
    table: join.table,
    outputs,
    accessFilter: access,
    filter,
    ...listWindow(ctx, collection, deep, request),
  };
}

/** o2m lists: sorted (deep `_sort`, the relation's sort field, the collection's, its key) and limited per parent. */
function listWindow(
  ctx: ReadPlanContext,
  collection: CollectionOverview,
  deep: DeepQuery | undefined,
  request: ChildRequest,
): Pick<ReadLevel, 'sort' | 'limit' | 'offset'> {
  const limit = deep?.limit === undefined ? ctx.queryLimitDefault : deep.limit === -1 ? null : deep.limit;
  let offset = deep?.offset ?? 0;
  if (deep?.page && limit !== null) offset = pageOffset(offset, limit, deep.page, '_page');
  const sort = deep?.sort?.length
    ? planSort(ctx, collection, deep.sort, request.where)
    : defaultSort(ctx, collection, request.sortField);
  return { sort, limit, offset };
}

function planSort(
  ctx: ReadPlanContext,
  collection: CollectionOverview,
  clauses: SortClause[],
  where: string,
): PlannedSort[] {
  return clauses.map((clause) => {
    const resolved = resolvePath(ctx, collection, clause.field, where, clause.order === 'desc' ? 'max' : 'min');
    if (resolved.field.concealed)
      throw new InvalidQueryError(`Field "${clause.field}" is concealed and can't be sorted on`);
    return { operand: resolved.operand, field: resolved.field, descending: clause.order === 'desc' };
  });
}

/** The relation's sort field, else the collection's, else its key — among the fields the caller may read. */
function defaultSort(
  ctx: ReadPlanContext,
  collection: CollectionOverview,
  relationSortField: string | null,
): PlannedSort[] {
  const readable = ctx.access.read(collection);
  const usable = (n: string | null): n is string =>
    Boolean(n && collection.fields[n]?.schema && readable?.guard(n) === null);
  const name = [relationSortField, collection.sortField].find(usable);
  // Else the key: every column of a composite key, so that the order is total there too.
  const keys: string[] = collection.keyFields;
  const names: string[] = name
    ? [name]
    : keys.every((n) => usable(n))
      ? keys
      : keys.slice(0, 1).filter((n) => usable(n));
  return names.map((n) => {
    const field = collection.fields[n]!;
    return { operand: { kind: 'field', field }, field, descending: false };
  });
}
