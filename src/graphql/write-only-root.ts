/**
 * The mutations of a collection the caller may write but not read (a policy that may only create in it): as in
 * Directus, they take the written data and answer `true`, since nothing written can be read back; the query
 * arguments and the read type, which would read, are not there. Deletes answer their keys, as for every collection.
 */
import { auditClient } from './context.js';
import {
  GraphQLBoolean,
  GraphQLID,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLFieldConfigMap,
} from 'graphql';
import type { Query } from '../request/query.js';
import type { WriteAction } from '../plan/write-access.js';
import type { OpenedCollection } from '../engine/write/opened-collection.js';
import { FILES } from '../engine/files/files-service.js';
import { SYSTEM_SINGLETONS, type CollectionView } from './access-view.js';
import type { TypeSet } from './collection-types.js';
import type { GraphQLContext } from './context.js';

type Args = Record<string, unknown>;
type Fields = GraphQLFieldConfigMap<unknown, GraphQLContext>;

export const DELETE_ONE = new GraphQLObjectType({
  name: 'delete_one',
  fields: { id: { type: new GraphQLNonNull(GraphQLID) } },
});
export const DELETE_MANY = new GraphQLObjectType({
  name: 'delete_many',
  fields: { ids: { type: new GraphQLNonNull(new GraphQLList(GraphQLID)) } },
});

/** What the writer re-reads after a write nobody here reads back (it answers null: the caller may not read). */
const NO_READ: Query = { fields: ['*'] };

export function writeOnlyMutations(types: TypeSet, view: CollectionView): Fields {
  const name = view.collection.collection;
  const root = view.typeName;
  const options = { system: view.collection.system, reread: 'rows' as const };
  const writer = (ctx: GraphQLContext) => ctx.app.writer;
  const open = (ctx: GraphQLContext, action: WriteAction | null) =>
    writer(ctx).open(name, action, ctx.accountability, { ...options, client: auditClient(ctx) });
  const keys = (args: Args) => (args.ids as (string | null)[]).filter((k): k is string => k !== null);
  const mutation: Fields = {};

  if (view.collection.singleton || SYSTEM_SINGLETONS.has(name)) {
    if (view.update)
      mutation[`update_${root}`] = {
        type: GraphQLBoolean,
        args: { data: { type: new GraphQLNonNull(types.input(name, 'update')) } },
        resolve: async (_r, args: Args, ctx) => {
          await writer(ctx).upsertSingleton(await open(ctx, null), args.data as Args, NO_READ, ctx.marks);
          return true;
        },
      };
    return mutation;
  }
  if (view.create) {
    const input = new GraphQLNonNull(types.input(name, 'create'));
    mutation[`create_${root}_items`] = {
      type: GraphQLBoolean,
      args: { data: { type: new GraphQLList(input) } },
      resolve: async (_r, args: Args, ctx) => {
        const items = (args.data as Args[] | undefined) ?? [];
        await writer(ctx).create(await open(ctx, 'create'), items, true, NO_READ, ctx.marks);
        return true;
      },
    };
    mutation[`create_${root}_item`] = {
      type: GraphQLBoolean,
      args: { data: { type: input } },
      resolve: async (_r, args: Args, ctx) => {
        await writer(ctx).create(await open(ctx, 'create'), [args.data as Args], false, NO_READ, ctx.marks);
        return true;
      },
    };
  }
  if (view.update) {
    const input = new GraphQLNonNull(types.input(name, 'update'));
    mutation[`update_${root}_items`] = {
      type: GraphQLBoolean,
      args: { ids: { type: new GraphQLNonNull(new GraphQLList(GraphQLID)) }, data: { type: input } },
      resolve: async (_r, args: Args, ctx) => {
        const change = { kind: 'keys' as const, keys: keys(args), data: args.data as Args };
        await writer(ctx).updateMany(await open(ctx, 'update'), change, NO_READ, ctx.marks);
        return true;
      },
    };
    mutation[`update_${root}_batch`] = {
      type: GraphQLBoolean,
      args: { data: { type: new GraphQLList(input) } },
      resolve: async (_r, args: Args, ctx) => {
        const change = { kind: 'batch' as const, items: (args.data as Args[] | undefined) ?? [] };
        await writer(ctx).updateMany(await open(ctx, 'update'), change, NO_READ, ctx.marks);
        return true;
      },
    };
    mutation[`update_${root}_item`] = {
      type: GraphQLBoolean,
      args: { id: { type: new GraphQLNonNull(GraphQLID) }, data: { type: input } },
      resolve: async (_r, args: Args, ctx) => {
        await writer(ctx).updateOne(await open(ctx, 'update'), String(args.id), args.data as Args, NO_READ, ctx.marks);
        return true;
      },
    };
  }
  if (view.delete) Object.assign(mutation, deleteMutations(root, open));
  return mutation;
}

/** A delete of keys: through the files engine for service_files (the bytes go with the rows), else the writer. */
async function deleteKeys(ctx: GraphQLContext, target: OpenedCollection<'rows'>, keys: string[]): Promise<void> {
  if (target.collection.collection === FILES) await ctx.app.files.delete(target, { kind: 'keys', keys });
  else await ctx.app.writer.delete(target, { kind: 'keys', keys }, ctx.marks);
}

/** `delete_<c>_items` / `delete_<c>_item`: they read nothing, so they are the same whether the caller reads or not. */
export function deleteMutations(
  root: string,
  open: (ctx: GraphQLContext, action: 'delete') => Promise<OpenedCollection<'rows'>>,
): Fields {
  return {
    [`delete_${root}_items`]: {
      type: DELETE_MANY,
      args: { ids: { type: new GraphQLNonNull(new GraphQLList(GraphQLID)) } },
      resolve: async (_r, args: Args, ctx) => {
        const ids = (args.ids as (string | null)[]).filter((k): k is string => k !== null);
        await deleteKeys(ctx, await open(ctx, 'delete'), ids);
        return { ids };
      },
    },
    [`delete_${root}_item`]: {
      type: DELETE_ONE,
      args: { id: { type: new GraphQLNonNull(GraphQLID) } },
      resolve: async (_r, args: Args, ctx) => {
        await deleteKeys(ctx, await open(ctx, 'delete'), [String(args.id)]);
        return { id: args.id };
      },
    },
  };
}
