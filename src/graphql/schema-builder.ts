/**
 * One caller's schemas: a TypeSet over every collection it may see, and two roots over it — /graphql (user
 * collections) and /graphql/system (service_* collections without their prefix, plus the system resolvers).
 */
import { GraphQLObjectType, GraphQLSchema, type GraphQLFieldConfigMap } from 'graphql';
import type { SchemaOverview } from '../schema/types.js';
import type { AccessView } from './access-view.js';
import { TypeSet } from './collection-types.js';
import type { GraphQLContext } from './context.js';
import { collectionRootFields, type ReadLimits } from './items-root.js';
import { GraphQLVoid } from './scalars.js';
import { systemRootFields } from './system-root.js';
import { subscriptionFields } from './subscription-fields.js';

export interface Schemas {
  items: GraphQLSchema;
  system: GraphQLSchema;
}

type Fields = GraphQLFieldConfigMap<unknown, GraphQLContext>;

/** `subscriptions`: GraphQL subscriptions are served (WEBSOCKETS_ENABLED and WEBSOCKETS_GRAPHQL_ENABLED). */
export function buildSchemas(
  overview: SchemaOverview,
  view: AccessView,
  admin: boolean,
  limits: ReadLimits,
  subscriptions = false,
): Schemas {
  const types = new TypeSet(view, admin);
  const views = [...view.values()];
  const user = collectionRootFields(
    types,
    views.filter((v) => !v.collection.system),
    limits,
  );
  const systemItems = collectionRootFields(
    types,
    views.filter((v) => v.collection.system),
    limits,
  );
  const custom = systemRootFields(types, overview, limits);
  // Subscriptions are served on /graphql only, over user collections (Directus has no system socket).
  const subscription = subscriptions
    ? subscriptionFields(
        types,
        views.filter((v) => !v.collection.system && v.read),
        limits,
      )
    : {};
  return {
    items: schemaOf(user.query, user.mutation, subscription),
    system: schemaOf({ ...systemItems.query, ...custom.query }, { ...systemItems.mutation, ...custom.mutation }),
  };
}

function schemaOf(query: Fields, mutation: Fields, subscription: Fields = {}): GraphQLSchema {
  const queryFields = Object.keys(query).length ? query : { _empty: { type: GraphQLVoid } };
  return new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: queryFields }),
    mutation: Object.keys(mutation).length ? new GraphQLObjectType({ name: 'Mutation', fields: mutation }) : undefined,
    subscription: Object.keys(subscription).length
      ? new GraphQLObjectType({ name: 'Subscription', fields: subscription })
      : undefined,
  });
}
