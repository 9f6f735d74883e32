/** GraphQL settings (reference §7.1): introspection on/off and the token limit of a document. */
import { bool, int, type Env } from './env-values.js';

export interface GraphQLConfig {
  introspection: boolean;
  /** Most tokens a document may have (graphql's `parse(..., {maxTokens})`). */
  queryTokenLimit: number;
}

export function readGraphQLConfig(env: Env): GraphQLConfig {
  return {
    introspection: bool(env, 'GRAPHQL_INTROSPECTION', true),
    queryTokenLimit: int(env, 'GRAPHQL_QUERY_TOKEN_LIMIT', 5000, 1),
  };
}
