/**
 * The mail flows on /graphql/system, with Directus's names and arguments: auth_password_request,
 * auth_password_reset, users_invite, users_invite_accept, users_register, users_register_verify. Each calls the
 * service its REST route calls (the same checks, limits, stall and answers), and answers true.
 */
import { GraphQLBoolean, GraphQLNonNull, GraphQLString, type GraphQLFieldConfigMap } from 'graphql';
import type { GraphQLContext } from './context.js';

type Args = Record<string, unknown>;

const required = <T extends typeof GraphQLString>(type: T) => new GraphQLNonNull(type);

/** GraphQL gives absent optional arguments as undefined or null: the REST body would not have them. */
function body(args: Args): Args {
  const out: Args = Object.create(null);
  for (const [key, value] of Object.entries(args)) if (value !== undefined && value !== null) out[key] = value;
  return out;
}

function done(work: (args: Args, ctx: GraphQLContext) => Promise<void>) {
  return async (_root: unknown, args: Args, ctx: GraphQLContext) => {
    await work(body(args), ctx);
    return true;
  };
}

export function accountMutations(): GraphQLFieldConfigMap<unknown, GraphQLContext> {
  return {
    auth_password_request: {
      type: GraphQLBoolean,
      args: { email: { type: required(GraphQLString) }, reset_url: { type: GraphQLString } },
      resolve: done((a, ctx) => ctx.app.passwordReset.request(a, ctx.client)),
    },
    auth_password_reset: {
      type: GraphQLBoolean,
      args: { token: { type: required(GraphQLString) }, password: { type: required(GraphQLString) } },
      resolve: done((a, ctx) => ctx.app.passwordReset.reset(a, ctx.client.ip)),
    },
    users_invite: {
      type: GraphQLBoolean,
      args: {
        // One address, as Directus types it (REST takes a list too).
        email: { type: required(GraphQLString) },
        role: { type: required(GraphQLString) },
        invite_url: { type: GraphQLString },
      },
      resolve: done((a, ctx) => ctx.app.invites.invite(a, ctx.accountability)),
    },
    users_invite_accept: {
      type: GraphQLBoolean,
      args: { token: { type: required(GraphQLString) }, password: { type: required(GraphQLString) } },
      resolve: done((a, ctx) => ctx.app.invites.accept(a, ctx.client.ip)),
    },
    users_register: {
      type: GraphQLBoolean,
      args: {
        email: { type: required(GraphQLString) },
        password: { type: required(GraphQLString) },
        verification_url: { type: GraphQLString },
        first_name: { type: GraphQLString },
        last_name: { type: GraphQLString },
      },
      resolve: done((a, ctx) => ctx.app.registration.register(a, ctx.client)),
    },
    users_register_verify: {
      type: GraphQLBoolean,
      args: { token: { type: required(GraphQLString) } },
      resolve: done((a, ctx) => ctx.app.registration.verify(a.token, ctx.client.ip)),
    },
  };
}
