/**
 * Root fields of /graphql/system that are not collections (Directus docs: GraphQL): the caller's own user, roles, flags and
 * permissions, the server, the schema objects (collections, fields, relations) and their admin mutations, auth and
 * two-factor. Each calls the service its REST route calls.
 */
import { accountMutations } from './account-mutations.js';
import { auditClient } from './context.js';
import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLFieldConfigMap,
} from 'graphql';
import { ForbiddenError, InvalidCredentialsError } from '../errors/catalogue.js';
import { parseImportFileBody } from '../request/upload-form.js';
import type { Query } from '../request/query.js';
import type { RowsRead } from '../engine/read/items-service.js';
import type { SchemaOverview } from '../schema/types.js';
import { healthReport, serverInfo } from '../project/server-info.js';
import type { TypeSet } from './collection-types.js';
import type { GraphQLContext } from './context.js';
import { selectionQuery, type ReadLimits } from './items-root.js';
import { GraphQLBigInt, GraphQLJSON } from './scalars.js';
import { COLLECTION, FIELD, RELATION } from './schema-object-types.js';
import { SERVER_INFO } from './server-types.js';

type Fields = GraphQLFieldConfigMap<unknown, GraphQLContext>;
type Args = Record<string, unknown>;

const NO_ROLE = '00000000-0000-0000-0000-000000000000';

const DELETE_COLLECTION = new GraphQLObjectType({
  name: 'delete_collection',
  fields: { collection: { type: GraphQLString } },
});
const DELETE_FIELD = new GraphQLObjectType({
  name: 'delete_field',
  fields: { collection: { type: GraphQLString }, field: { type: GraphQLString } },
});
const GLOBALS = new GraphQLObjectType({
  name: 'policies_me_globals',
  fields: {
    enforce_tfa: { type: GraphQLBoolean },
    app_access: { type: GraphQLBoolean },
    admin_access: { type: GraphQLBoolean },
  },
});
const AUTH_TOKENS = new GraphQLObjectType({
  name: 'auth_tokens',
  fields: {
    access_token: { type: GraphQLString },
    expires: { type: GraphQLBigInt },
    refresh_token: { type: GraphQLString },
  },
});
const SDL_SCOPE = new GraphQLEnumType({ name: 'graphql_sdl_scope', values: { items: {}, system: {} } });
const AUTH_MODE = new GraphQLEnumType({ name: 'auth_mode', values: { json: {}, cookie: {}, session: {} } });
const TFA_SECRET = new GraphQLObjectType({
  name: 'users_me_tfa_generate_data',
  fields: { secret: { type: GraphQLString }, otpauth_url: { type: GraphQLString } },
});

const required = <T extends import('graphql').GraphQLNullableType>(type: T) => new GraphQLNonNull(type);
const listOf = <T extends import('graphql').GraphQLOutputType>(type: T) =>
  new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(type)));

/** The data of a read (null: a write the caller may not read back). */
function data(read: RowsRead | null): unknown {
  return read === null ? null : read.data;
}

export function systemRootFields(
  types: TypeSet,
  _overview: SchemaOverview,
  limits: ReadLimits,
): { query: Fields; mutation: Fields } {
  const query: Fields = { ...serverAndSchemaQueries(), ...meQueries(types, limits) };
  const mutation: Fields = { ...authMutations(), ...accountMutations() };
  if (types.collectionView('service_users')?.update) mutation.update_users_me = updateUsersMe(types, limits);
  if (types.collectionView('service_files')?.create) mutation.import_file = importFile(types, limits);
  if (types.admin) Object.assign(mutation, schemaMutations());
  return { query, mutation };
}

/** The server's state and the schema's collections, fields and relations. */
function serverAndSchemaQueries(): Fields {
  return {
    server_ping: { type: GraphQLString, resolve: () => 'pong' },
    server_info: {
      type: new GraphQLNonNull(SERVER_INFO),
      resolve: (_r, _a, ctx) => serverInfo(ctx.app, ctx.accountability),
    },
    // JSON, not an object type: Directus answers /server/health's body whole (checks only for admins).
    server_health: {
      type: GraphQLJSON,
      resolve: (_r, _a, ctx) => healthReport(ctx.app, ctx.accountability),
    },
    server_specs_oas: { type: GraphQLJSON, resolve: (_r, _a, ctx) => ctx.oas() },
    server_specs_graphql: {
      type: GraphQLString,
      args: { scope: { type: SDL_SCOPE } },
      resolve: (_r, a: Args, ctx) => ctx.sdl(a.scope === 'system' ? 'system' : 'items'),
    },
    policies_me_globals: { type: GLOBALS, resolve: (_r, _a, ctx) => ctx.app.me.globals(ctx.accountability) },
    permissions_me: { type: GraphQLJSON, resolve: (_r, _a, ctx) => ctx.app.me.collectionAccess(ctx.accountability) },
    collections: {
      type: listOf(COLLECTION),
      resolve: (_r, _a, ctx) => ctx.app.collections.readAll(ctx.accountability),
    },
    collections_by_name: {
      type: COLLECTION,
      args: { name: { type: required(GraphQLString) } },
      resolve: (_r, a: Args, ctx) => ctx.app.collections.readOne(ctx.accountability, String(a.name)),
    },
    fields: { type: listOf(FIELD), resolve: (_r, _a, ctx) => ctx.app.fields.readAll(ctx.accountability) },
    fields_in_collection: {
      type: listOf(FIELD),
      args: { collection: { type: required(GraphQLString) } },
      resolve: (_r, a: Args, ctx) => ctx.app.fields.readCollection(ctx.accountability, String(a.collection)),
    },
    fields_by_name: {
      type: FIELD,
      args: { collection: { type: required(GraphQLString) }, field: { type: required(GraphQLString) } },
      resolve: (_r, a: Args, ctx) => ctx.app.fields.readOne(ctx.accountability, String(a.collection), String(a.field)),
    },
    relations: { type: listOf(RELATION), resolve: (_r, _a, ctx) => ctx.app.relations.readAll(ctx.accountability) },
    relations_in_collection: {
      type: listOf(RELATION),
      args: { collection: { type: required(GraphQLString) } },
      resolve: (_r, a: Args, ctx) => ctx.app.relations.readCollection(ctx.accountability, String(a.collection)),
    },
    relations_by_name: {
      type: RELATION,
      args: { collection: { type: required(GraphQLString) }, field: { type: required(GraphQLString) } },
      resolve: (_r, a: Args, ctx) =>
        ctx.app.relations.readOne(ctx.accountability, String(a.collection), String(a.field)),
    },
  };
}

/** The caller's own user and roles, where the caller may read them. */
function meQueries(types: TypeSet, limits: ReadLimits): Fields {
  const query: Fields = {};
  if (types.collectionView('service_users')) {
    query.users_me = {
      type: types.object('service_users'),
      resolve: async (_r, _a, ctx, info) => {
        if (!ctx.accountability.user) throw new InvalidCredentialsError();
        return data(
          await ctx.app.items.rowsOne(
            'service_users',
            ctx.accountability.user,
            selectionQuery(info, {}, undefined, limits),
            ctx.accountability,
            ctx.marks,
            { system: true },
          ),
        );
      },
    };
  }
  if (types.collectionView('service_roles')) {
    query.roles_me = {
      type: listOf(types.object('service_roles')),
      resolve: async (_r, _a, ctx, info) => {
        const roles = ctx.accountability.roles;
        const q: Query = {
          ...selectionQuery(info, {}, undefined, limits),
          filter: { type: 'condition', field: 'id', operator: '_in', value: roles.length ? roles : [NO_ROLE] },
        };
        return data(await ctx.app.items.rowsMany('service_roles', q, ctx.accountability, ctx.marks, { system: true }));
      },
    };
  }
  return query;
}

/** Login, refresh, logout and the caller's two-factor authentication. */
function authMutations(): Fields {
  return {
    auth_login: {
      type: AUTH_TOKENS,
      args: {
        email: { type: required(GraphQLString) },
        password: { type: required(GraphQLString) },
        mode: { type: AUTH_MODE },
        otp: { type: GraphQLString },
      },
      resolve: async (_r, a: Args, ctx) => {
        // A malformed address is an unknown user here (401), as Directus's resolver answers it.
        const result = await ctx.app.auth.login(definedOnly(a), ctx.client, 'unchecked');
        ctx.cookieChanges.push(...result.cookies);
        return result.data;
      },
    },
    auth_refresh: {
      type: AUTH_TOKENS,
      args: { refresh_token: { type: GraphQLString }, mode: { type: AUTH_MODE } },
      resolve: async (_r, a: Args, ctx) => {
        const result = await ctx.app.auth.refresh(definedOnly(a), ctx.cookies, ctx.client);
        ctx.cookieChanges.push(...result.cookies);
        return result.data;
      },
    },
    auth_logout: {
      type: GraphQLBoolean,
      args: { refresh_token: { type: GraphQLString }, mode: { type: AUTH_MODE } },
      resolve: async (_r, a: Args, ctx) => {
        ctx.cookieChanges.push(...(await ctx.app.auth.logout(definedOnly(a), ctx.cookies)));
        return true;
      },
    },
    users_me_tfa_generate: {
      type: TFA_SECRET,
      args: { password: { type: required(GraphQLString) } },
      resolve: (_r, a: Args, ctx) => ctx.app.tfa.generate(ctx.accountability.user, a),
    },
    users_me_tfa_enable: {
      type: GraphQLBoolean,
      args: { otp: { type: required(GraphQLString) }, secret: { type: required(GraphQLString) } },
      resolve: async (_r, a: Args, ctx) => {
        await ctx.app.tfa.enable(ctx.accountability.user, a);
        return true;
      },
    },
    users_me_tfa_disable: {
      type: GraphQLBoolean,
      args: { otp: { type: required(GraphQLString) } },
      resolve: async (_r, a: Args, ctx) => {
        await ctx.app.tfa.disable(ctx.accountability.user, a);
        return true;
      },
    },
  };
}

/** `import_file(url, data)`: POST /files/import's work, answered with the file as the selection reads it. */
function importFile(types: TypeSet, limits: ReadLimits): Fields[string] {
  return {
    type: types.object('service_files'),
    // The row's fields as JSON: the create input would require storage and filename_download, which the import sets.
    args: { url: { type: required(GraphQLString) }, data: { type: GraphQLJSON } },
    resolve: async (_r, a: Args, ctx, info) => {
      const target = await ctx.app.files.open(ctx.accountability, 'create', true);
      const { url, data } = parseImportFileBody({ url: a.url, data: a.data ?? undefined });
      const key = await ctx.app.files.importUrl(target, url, data);
      const query = selectionQuery(info, {}, undefined, limits);
      try {
        return (
          await ctx.app.items.rowsOne('service_files', key, query, ctx.accountability, ctx.marks, { system: true })
        ).data;
      } catch (error) {
        if (error instanceof ForbiddenError) return null;
        throw error;
      }
    },
  };
}

function updateUsersMe(types: TypeSet, limits: ReadLimits): Fields[string] {
  return {
    type: types.object('service_users'),
    args: { data: { type: types.input('service_users', 'update') } },
    resolve: async (_r, a: Args, ctx, info) => {
      if (!ctx.accountability.user) throw new InvalidCredentialsError();
      const target = await ctx.app.writer.open('service_users', 'update', ctx.accountability, {
        system: true,
        reread: 'rows' as const,
        client: auditClient(ctx),
      });
      return data(
        await ctx.app.writer.updateOne(
          target,
          ctx.accountability.user,
          (a.data as Args) ?? {},
          selectionQuery(info, {}, undefined, limits),
          ctx.marks,
        ),
      );
    },
  };
}

/** Admin-only schema mutations (the services refuse anyone else too). */
function schemaMutations(): Fields {
  return {
    create_collections_item: {
      type: COLLECTION,
      args: { data: { type: required(GraphQLJSON) } },
      resolve: (_r, a: Args, ctx) => ctx.app.collections.create(ctx.accountability, a.data),
    },
    update_collections_item: {
      type: COLLECTION,
      args: { collection: { type: required(GraphQLString) }, data: { type: required(GraphQLJSON) } },
      resolve: (_r, a: Args, ctx) => ctx.app.collections.update(ctx.accountability, String(a.collection), a.data),
    },
    delete_collections_item: {
      type: DELETE_COLLECTION,
      args: { collection: { type: required(GraphQLString) } },
      resolve: async (_r, a: Args, ctx) => {
        await ctx.app.collections.delete(ctx.accountability, String(a.collection));
        return { collection: a.collection };
      },
    },
    create_fields_item: {
      type: FIELD,
      args: { collection: { type: required(GraphQLString) }, data: { type: required(GraphQLJSON) } },
      resolve: (_r, a: Args, ctx) => ctx.app.fields.create(ctx.accountability, String(a.collection), a.data),
    },
    update_fields_item: {
      type: FIELD,
      args: {
        collection: { type: required(GraphQLString) },
        field: { type: required(GraphQLString) },
        data: { type: required(GraphQLJSON) },
      },
      resolve: (_r, a: Args, ctx) =>
        ctx.app.fields.update(ctx.accountability, String(a.collection), String(a.field), a.data),
    },
    update_fields_items: {
      type: listOf(FIELD),
      args: { collection: { type: required(GraphQLString) }, data: { type: required(GraphQLJSON) } },
      resolve: (_r, a: Args, ctx) => ctx.app.fields.updateMany(ctx.accountability, String(a.collection), a.data),
    },
    delete_fields_item: {
      type: DELETE_FIELD,
      args: { collection: { type: required(GraphQLString) }, field: { type: required(GraphQLString) } },
      resolve: async (_r, a: Args, ctx) => {
        await ctx.app.fields.delete(ctx.accountability, String(a.collection), String(a.field));
        return { collection: a.collection, field: a.field };
      },
    },
    create_relations_item: {
      type: RELATION,
      args: { data: { type: required(GraphQLJSON) } },
      resolve: (_r, a: Args, ctx) => ctx.app.relations.create(ctx.accountability, a.data),
    },
    update_relations_item: {
      type: RELATION,
      args: {
        collection: { type: required(GraphQLString) },
        field: { type: required(GraphQLString) },
        data: { type: required(GraphQLJSON) },
      },
      resolve: (_r, a: Args, ctx) =>
        ctx.app.relations.update(ctx.accountability, String(a.collection), String(a.field), a.data),
    },
    delete_relations_item: {
      type: DELETE_FIELD,
      args: { collection: { type: required(GraphQLString) }, field: { type: required(GraphQLString) } },
      resolve: async (_r, a: Args, ctx) => {
        await ctx.app.relations.delete(ctx.accountability, String(a.collection), String(a.field));
        return { collection: a.collection, field: a.field };
      },
    },
  };
}

/** Arguments the client gave (GraphQL leaves out the others), as the REST body would hold them. */
function definedOnly(args: Args): Args {
  return Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined && v !== null));
}
