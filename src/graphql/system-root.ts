/** Root fields of /graphql/system that are not collections (reference §7.3). */
import type { GraphQLFieldConfigMap } from 'graphql';
import type { SchemaOverview } from '../schema/types.js';
import type { TypeSet } from './collection-types.js';
import type { GraphQLContext } from './context.js';
import type { ReadLimits } from './items-root.js';

/** The service_* collections served with items semantics, as their REST routes (/users, /roles, ...) are. */
export const SYSTEM_ITEM_COLLECTIONS = new Set(['service_users', 'service_roles', 'service_policies', 'service_access', 'service_permissions', 'service_settings']);

type Fields = GraphQLFieldConfigMap<unknown, GraphQLContext>;

export function systemRootFields(_types: TypeSet, _overview: SchemaOverview, _limits: ReadLimits): { query: Fields; mutation: Fields } {
  return { query: {}, mutation: {} };
}
