/**
 * Root fields over collections (Directus docs: GraphQL): `<c>`, `<c>_by_id`, `<c>_aggregated`, the singleton form, and the
 * mutations. Each resolver turns its whole selection set into one Query IR and makes one call to the read engine
 * (ItemsService) or the writer (ItemsWriter, whose re-read uses the selection as its query).
 */
import { auditClient } from './context.js';
import {
  GraphQLID,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type FieldNode,
  type GraphQLFieldConfigMap,
  type GraphQLInputType,
  type GraphQLResolveInfo,
} from 'graphql';
import { Cache } from '../cache/cache.js';
import { InvalidQueryError } from '../errors/catalogue.js';
import { checkDepth } from '../request/parse-query.js';
import type { Query } from '../request/query.js';
import type { WriteAction } from '../plan/write-access.js';
import type { RowsRead } from '../engine/read/items-service.js';
import { SYSTEM_SINGLETONS, type CollectionView } from './access-view.js';
import { QUERY_ARGS, type TypeSet } from './collection-types.js';
import type { GraphQLContext } from './context.js';
import { queryArgs } from './query-args.js';
import { levelOf, collectFields, type WalkContext } from './selection.js';
import { deleteMutations, writeOnlyMutations } from './write-only-root.js';
import { assertAggregatable, judgedRevisions, JUDGED_COLLECTION } from './revisions-root.js';
import type { OpenedCollection } from '../engine/write/opened-collection.js';
import { emptyRecord } from '../request/prototype-keys.js';

type Args = Record<string, unknown>;
type Fields = GraphQLFieldConfigMap<unknown, GraphQLContext>;

const AGGREGATE_FUNCTIONS = ['count', 'countDistinct', 'avg', 'sum', 'avgDistinct', 'sumDistinct', 'min', 'max'];

/** What a root query field over a collection reads (for the pass-through of plain selections). */
export interface RootRead {
  collection: string;
  kind: 'list' | 'by_id' | 'singleton';
  options: { system: boolean; singleton: boolean };
  limits: ReadLimits;
}

export interface ReadLimits {
  queryLimitMax: number;
  maxRelationalDepth: number;
}

/**
 * Query IRs already walked, per field (the compiled document keeps its AST nodes) and variable values: a document
 * asked again costs no walk. The IR is never mutated downstream, so it can be shared.
 */
const walked = new WeakMap<readonly FieldNode[], Cache<string, Query>>();
const MAX_VARIANTS = 20;

/** The Query IR of a field returning items of `view`'s collection, from its selection set and query arguments. */
export function selectionQuery(
  info: GraphQLResolveInfo,
  args: Args,
  filterType: GraphQLInputType | undefined,
  limits: ReadLimits,
): Query {
  const key = info.operation.variableDefinitions?.length ? JSON.stringify(info.variableValues) : '';
  let variants = walked.get(info.fieldNodes);
  const hit = variants?.get(key);
  if (hit) return hit;
  const query = walkSelection(info, args, filterType, limits);
  if (!variants) walked.set(info.fieldNodes, (variants = new Cache('graphql-selections', { max: MAX_VARIANTS })));
  variants.set(key, query);
  return query;
}

function walkSelection(
  info: GraphQLResolveInfo,
  args: Args,
  filterType: GraphQLInputType | undefined,
  limits: ReadLimits,
): Query {
  const ctx = { fragments: info.fragments, variables: info.variableValues, options: limits };
  return levelQuery(unwrapObject(info.returnType), info.fieldNodes, args, filterType, ctx, limits);
}

/** The Query IR of the selections `nodes` make on `type`, with the field's query arguments. */
export function levelQuery(
  type: GraphQLObjectType,
  nodes: readonly FieldNode[],
  args: Args,
  filterType: GraphQLInputType | undefined,
  ctx: WalkContext,
  limits: ReadLimits,
): Query {
  const level = levelOf(type, nodes, ctx);
  const query: Query = { ...queryArgs(args, filterType, limits), fields: level.fields.length ? level.fields : ['*'] };
  if (Object.keys(level.alias).length) query.alias = level.alias;
  if (Object.keys(level.deep).length) query.deep = level.deep;
  checkDepth(query, limits.maxRelationalDepth, level.depth);
  return query;
}

function unwrapObject(type: unknown): GraphQLObjectType {
  let t = type as { ofType?: unknown };
  while (!(t instanceof GraphQLObjectType) && t.ofType) t = t.ofType as { ofType?: unknown };
  return t as GraphQLObjectType;
}

/** The data of a read (null: a write the caller may not read back). */
function data(read: RowsRead | null): unknown {
  return read === null ? null : read.data;
}

export function collectionRootFields(
  types: TypeSet,
  views: CollectionView[],
  limits: ReadLimits,
): { query: Fields; mutation: Fields } {
  const query: Fields = {};
  const mutation: Fields = {};
  for (const view of views) {
    if (!view.read) {
      Object.assign(mutation, writeOnlyMutations(types, view));
      continue;
    }
    const name = view.collection.collection;
    const root = view.typeName;
    const type = types.object(name);
    const filter = types.filter(name);
    const singleton = view.collection.singleton || SYSTEM_SINGLETONS.has(name);
    const options = { system: view.collection.system, singleton };
    const judged = name === JUDGED_COLLECTION;
    const read = (ctx: GraphQLContext, q: Query) =>
      judged ? judgedRevisions(ctx, q, null) : ctx.app.items.rowsMany(name, q, ctx.accountability, ctx.marks, options);
    // Revisions are judged per caller after their read: never spliced from the database's JSON.
    const passThrough = (kind: RootRead['kind']) =>
      judged ? {} : { strata: { root: { collection: name, kind, options, limits } satisfies RootRead } };

    if (singleton) {
      query[root] = {
        type,
        args: { version: { type: GraphQLString } },
        extensions: passThrough('singleton'),
        resolve: async (_root, _args, ctx, info) => data(await read(ctx, selectionQuery(info, {}, undefined, limits))),
      };
    } else {
      query[root] = {
        type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(type))),
        args: QUERY_ARGS(filter),
        extensions: passThrough('list'),
        resolve: async (_root, args, ctx, info) => data(await read(ctx, selectionQuery(info, args, filter, limits))),
      };
      // A composite key's id is its key string (`1,2`), as on REST.
      if (view.collection.keyFields.length) {
        query[`${root}_by_id`] = {
          type,
          args: { id: { type: new GraphQLNonNull(GraphQLID) }, version: { type: GraphQLString } },
          extensions: passThrough('by_id'),
          resolve: async (_root, args, ctx, info) => {
            const q = selectionQuery(info, {}, undefined, limits);
            // `version`: the item as of that content version (versions-service.ts); `main` or none, the item.
            if (typeof args.version === 'string' && args.version !== '') {
              // A content version's answer is read outside the tagged reads: never kept.
              ctx.marks.uncacheable?.();
              return ctx.app.versions.readAs(
                name,
                String(args.id),
                args.version,
                q,
                ctx.accountability,
                options.system,
              );
            }
            if (judged) return data(await judgedRevisions(ctx, q, String(args.id)));
            return data(await ctx.app.items.rowsOne(name, String(args.id), q, ctx.accountability, ctx.marks, options));
          },
        };
      }
      if (view.collection.meta?.versioning && view.collection.primary)
        query[`${root}_by_version`] = byVersionRoot(types, name, options.system, limits);
      query[`${root}_aggregated`] = {
        type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(types.aggregated(name)))),
        args: { groupBy: { type: new GraphQLList(GraphQLString) }, ...QUERY_ARGS(filter) },
        resolve: async (_root, args, ctx, info) => {
          assertAggregatable(ctx, name);
          const q = aggregateQuery(info, args, filter, limits);
          const rows = data(await ctx.app.items.rowsMany(name, q, ctx.accountability, ctx.marks, options)) as Record<
            string,
            unknown
          >[];
          return rows.map((row) => aggregateRow(row, q));
        },
      };
    }
    addMutations(mutation, types, view, limits);
  }
  return { query, mutation };
}

/**
 * `<c>_by_version(version:, id:)` on collections with content versioning: the item as of the version, its relational
 * fields as the keys the version holds (`version_<c>`). Left to this resolver by the pass-through (no read plan).
 */
function byVersionRoot(types: TypeSet, name: string, system: boolean, limits: ReadLimits): Fields[string] {
  const type = types.versioned(name);
  return {
    type,
    args: { version: { type: new GraphQLNonNull(GraphQLString) }, id: { type: new GraphQLNonNull(GraphQLID) } },
    resolve: async (_root, args, ctx, info) => {
      const walk = { fragments: info.fragments, variables: info.variableValues, options: limits };
      const selected = collectFields(
        type.name,
        info.fieldNodes.map((n) => n.selectionSet),
        walk,
      );
      const fields = [...new Set([...selected.values()].map((nodes) => nodes[0]!.name.value))].filter(
        (field) => !field.startsWith('__'),
      );
      const query = { fields: fields.length ? fields : [types.view.get(name)!.collection.primary!] };
      ctx.marks.uncacheable?.();
      return ctx.app.versions.readAs(name, String(args.id), String(args.version), query, ctx.accountability, system);
    },
  };
}

function aggregateQuery(info: GraphQLResolveInfo, args: Args, filter: GraphQLInputType, limits: ReadLimits): Query {
  const ctx = { fragments: info.fragments, variables: info.variableValues, options: limits };
  const type = unwrapObject(info.returnType);
  const aggregate: Record<string, string[]> = {};
  for (const nodes of collectFields(
    type.name,
    info.fieldNodes.map((n) => n.selectionSet),
    ctx,
  ).values()) {
    const fn = nodes[0]!.name.value;
    if (fn === 'countAll') aggregate.countAll = ['*'];
    if (!AGGREGATE_FUNCTIONS.includes(fn)) continue;
    const fnType = unwrapObject(type.getFields()[fn]!.type);
    const fields = [
      ...collectFields(
        fnType.name,
        nodes.map((n) => n.selectionSet),
        ctx,
      ).values(),
    ]
      .map((f) => f[0]!.name.value)
      .filter((f) => f !== '__typename');
    aggregate[fn] = [...new Set([...(aggregate[fn] ?? []), ...fields])];
  }
  const query: Query = { ...queryArgs(args, filter, limits), aggregate };
  const groupBy = Array.isArray(args.groupBy)
    ? (args.groupBy as unknown[]).filter((g): g is string => typeof g === 'string')
    : [];
  if (groupBy.length) query.groupBy = groupBy;
  for (const [fn, fields] of Object.entries(aggregate)) if (!fields.length) delete aggregate[fn];
  if (!Object.keys(aggregate).length) delete query.aggregate;
  if (!query.aggregate && !query.groupBy) throw new InvalidQueryError('"aggregate" needs at least one function');
  // As Directus validates an aggregated query: its filter, sort and groups count (it selects no fields).
  checkDepth(query, limits.maxRelationalDepth);
  return query;
}

/** REST's aggregate row (`{author: 1, count: {id: 3}, countAll: 5}`) → `{group: {author: 1}, count: {id: 3}, countAll: 5}`. */
function aggregateRow(row: Record<string, unknown>, query: Query): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // Keyed by the grouped columns' names (an existing table may have any): on no prototype.
  const group: Record<string, unknown> = emptyRecord();
  const functions = new Set(Object.keys(query.aggregate ?? {}));
  for (const [key, value] of Object.entries(row)) {
    if (functions.has(key)) out[key] = value;
    else group[key] = value;
  }
  if (query.groupBy?.length) out.group = group;
  return out;
}

/** What every mutation of one collection is built from. */
interface MutationKit {
  name: string;
  root: string;
  types: TypeSet;
  type: GraphQLObjectType;
  list: GraphQLList<GraphQLNonNull<GraphQLObjectType>>;
  filter: ReturnType<TypeSet['filter']>;
  reread: (info: GraphQLResolveInfo, args: Args) => Query;
  writer: (ctx: GraphQLContext) => GraphQLContext['app']['writer'];
  /** The writer's one writability check; the singleton's rule is that of what its write turns out to be. */
  open: (ctx: GraphQLContext, action: WriteAction | null) => Promise<OpenedCollection<'rows'>>;
}

function addMutations(mutation: Fields, types: TypeSet, view: CollectionView, limits: ReadLimits): void {
  const name = view.collection.collection;
  const type = types.object(name);
  const filter = types.filter(name);
  const options = { system: view.collection.system, reread: 'rows' as const };
  const kit: MutationKit = {
    name,
    root: view.typeName,
    types,
    type,
    list: new GraphQLList(new GraphQLNonNull(type)),
    filter,
    reread: (info, args) => selectionQuery(info, args, filter, limits),
    writer: (ctx) => ctx.app.writer,
    open: (ctx, action) =>
      ctx.app.writer.open(name, action, ctx.accountability, { ...options, client: auditClient(ctx) }),
  };
  if (view.collection.singleton || SYSTEM_SINGLETONS.has(name)) {
    if (view.update) Object.assign(mutation, singletonMutation(kit));
    return;
  }
  if (view.create) Object.assign(mutation, createMutations(kit));
  if (view.update) Object.assign(mutation, updateMutations(kit));
  if (view.delete) Object.assign(mutation, deleteMutations(kit.root, kit.open));
}

function singletonMutation({ name, root, types, type, reread, writer, open }: MutationKit): Fields {
  return {
    [`update_${root}`]: {
      type,
      args: { data: { type: new GraphQLNonNull(types.input(name, 'update')) } },
      resolve: async (_r, args, ctx, info) =>
        data(await writer(ctx).upsertSingleton(await open(ctx, null), args.data as Args, reread(info, {}), ctx.marks)),
    },
  };
}

function createMutations({ name, root, types, type, list, filter, reread, writer, open }: MutationKit): Fields {
  return {
    [`create_${root}_items`]: {
      type: list,
      args: { ...QUERY_ARGS(filter), data: { type: new GraphQLList(new GraphQLNonNull(types.input(name, 'create'))) } },
      resolve: async (_r, args, ctx, info) =>
        data(
          await writer(ctx).create(
            await open(ctx, 'create'),
            (args.data as Args[] | undefined) ?? [],
            true,
            reread(info, args),
            ctx.marks,
          ),
        ),
    },
    [`create_${root}_item`]: {
      type,
      args: { data: { type: new GraphQLNonNull(types.input(name, 'create')) } },
      resolve: async (_r, args, ctx, info) =>
        data(
          await writer(ctx).create(await open(ctx, 'create'), [args.data as Args], false, reread(info, {}), ctx.marks),
        ),
    },
  };
}

function updateMutations({ name, root, types, type, list, filter, reread, writer, open }: MutationKit): Fields {
  return {
    [`update_${root}_items`]: {
      type: list,
      args: {
        ...QUERY_ARGS(filter),
        ids: { type: new GraphQLNonNull(new GraphQLList(GraphQLID)) },
        data: { type: new GraphQLNonNull(types.input(name, 'update')) },
      },
      resolve: async (_r, args, ctx, info) =>
        data(
          await writer(ctx).updateMany(
            await open(ctx, 'update'),
            {
              kind: 'keys',
              keys: (args.ids as (string | null)[]).filter((k): k is string => k !== null),
              data: args.data as Args,
            },
            reread(info, args),
            ctx.marks,
          ),
        ),
    },
    [`update_${root}_batch`]: {
      type: list,
      args: { ...QUERY_ARGS(filter), data: { type: new GraphQLList(new GraphQLNonNull(types.input(name, 'update'))) } },
      resolve: async (_r, args, ctx, info) =>
        data(
          await writer(ctx).updateMany(
            await open(ctx, 'update'),
            { kind: 'batch', items: (args.data as Args[] | undefined) ?? [] },
            reread(info, args),
            ctx.marks,
          ),
        ),
    },
    [`update_${root}_item`]: {
      type,
      args: {
        id: { type: new GraphQLNonNull(GraphQLID) },
        data: { type: new GraphQLNonNull(types.input(name, 'update')) },
      },
      resolve: async (_r, args, ctx, info) =>
        data(
          await writer(ctx).updateOne(
            await open(ctx, 'update'),
            String(args.id),
            args.data as Args,
            reread(info, {}),
            ctx.marks,
          ),
        ),
    },
  };
}
