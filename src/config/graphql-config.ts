/** GraphQL settings: introspection on/off and the limits of a document (tokens, depth, fields, aliases). */
import { bool, int, type Env } from './env-values.js';

export interface GraphQLConfig {
  introspection: boolean;
  /** Most tokens a document may have (graphql's `parse(..., {maxTokens})`). */
  queryTokenLimit: number;
  /** Deepest field nesting of an operation (GRAPHQL_QUERY_MAX_DEPTH). */
  queryMaxDepth: number;
  /** Most fields of an operation with its fragments expanded (GRAPHQL_QUERY_MAX_FIELDS). */
  queryMaxFields: number;
  /** Most aliases of an operation with its fragments expanded (GRAPHQL_QUERY_MAX_ALIASES). */
  queryMaxAliases: number;
}

export function readGraphQLConfig(env: Env): GraphQLConfig {
  return {
    introspection: bool(env, 'GRAPHQL_INTROSPECTION', true),
    queryTokenLimit: int(env, 'GRAPHQL_QUERY_TOKEN_LIMIT', 5000, 1),
    queryMaxDepth: int(env, 'GRAPHQL_QUERY_MAX_DEPTH', 20, 1),
    queryMaxFields: int(env, 'GRAPHQL_QUERY_MAX_FIELDS', 1000, 1),
    queryMaxAliases: int(env, 'GRAPHQL_QUERY_MAX_ALIASES', 100, 0),
  };
}
