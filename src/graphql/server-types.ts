/**
 * The type of /graphql/system's `server_info` (Directus docs: GraphQL, "Server"): an object whose subfields a query
 * selects, as REST's /server/info answers it. Parts only some callers see (query limits for signed-in users,
 * versions for admins) are null for the others. (`server_health` is a JSON scalar, as in Directus.)
 */
import { GraphQLBoolean, GraphQLFloat, GraphQLInt, GraphQLObjectType, GraphQLString } from 'graphql';
import { GraphQLJSON } from './scalars.js';

const S = { type: GraphQLString };

const PROJECT = new GraphQLObjectType({
  name: 'server_info_project',
  fields: {
    project_name: S,
    project_descriptor: S,
    project_logo: S,
    project_color: S,
    default_language: S,
    public_foreground: S,
    public_background: S,
    public_note: S,
    custom_css: S,
    public_registration: { type: GraphQLBoolean },
    public_registration_verify_email: { type: GraphQLBoolean },
  },
});

export const SERVER_INFO = new GraphQLObjectType({
  name: 'server_info',
  fields: {
    project: { type: PROJECT },
    // Strata's rate limits are not announced (REST answers false): a boolean, as that answer is.
    rateLimit: { type: GraphQLBoolean },
    rateLimitGlobal: { type: GraphQLBoolean },
    queryLimit: {
      type: new GraphQLObjectType({
        name: 'server_info_query_limit',
        fields: { default: { type: GraphQLInt }, max: { type: GraphQLInt } },
      }),
    },
    strata: { type: new GraphQLObjectType({ name: 'server_info_strata', fields: { version: S, database: S } }) },
    node: {
      type: new GraphQLObjectType({ name: 'server_info_node', fields: { version: S, uptime: { type: GraphQLFloat } } }),
    },
  },
});
