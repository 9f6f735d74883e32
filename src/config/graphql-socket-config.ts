/**
 * GraphQL subscriptions over graphql-ws (Directus's names): served on WEBSOCKETS_GRAPHQL_PATH (`/graphql`, beside the
 * HTTP GraphQL route) when WEBSOCKETS_ENABLED and WEBSOCKETS_GRAPHQL_ENABLED. Authentication modes as the REST
 * socket's: public (a `connection_init` token optional), handshake (`connection_init` must carry `access_token`),
 * strict (the token on the upgrade request itself). Its connections are counted apart from /websocket's, as Directus
 * does (WEBSOCKETS_GRAPHQL_CONN_LIMIT beside WEBSOCKETS_REST_CONN_LIMIT); the other bounds (per IP, per user,
 * subscriptions, message size, buffer, heartbeat) are the shared WEBSOCKETS_* settings.
 */
import { bool, int, type Env } from './env-values.js';
import { authModeOf, limit, socketPathOf, type WebSocketAuthMode } from './websocket-config.js';

export interface GraphQLSocketConfig {
  enabled: boolean;
  path: string;
  auth: WebSocketAuthMode;
  /** How long a socket may stay without `connection_init` (graphql-ws closes it with 4408). */
  authTimeoutMs: number;
  /** Open GraphQL sockets on this instance (WEBSOCKETS_GRAPHQL_CONN_LIMIT); null = unbounded. */
  connections: number | null;
}

export function readGraphQLSocketConfig(env: Env): GraphQLSocketConfig {
  return {
    enabled: bool(env, 'WEBSOCKETS_ENABLED', false) && bool(env, 'WEBSOCKETS_GRAPHQL_ENABLED', true),
    path: socketPathOf(env, 'WEBSOCKETS_GRAPHQL_PATH', '/graphql'),
    auth: authModeOf(env, 'WEBSOCKETS_GRAPHQL_AUTH'),
    // Directus gives it in seconds.
    authTimeoutMs: int(env, 'WEBSOCKETS_GRAPHQL_AUTH_TIMEOUT', 10, 1) * 1000,
    connections: limit(env, 'WEBSOCKETS_GRAPHQL_CONN_LIMIT', null),
  };
}
