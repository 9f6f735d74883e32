/** WebSocket settings (Directus's names): /websocket is off unless WEBSOCKETS_ENABLED and WEBSOCKETS_REST_ENABLED. */
import { bool, ConfigError, int, size, str, type Env } from './env-values.js';

export type WebSocketAuthMode = 'public' | 'handshake' | 'strict';

export interface WebSocketLimits {
  /** Open /websocket connections on this instance (WEBSOCKETS_REST_CONN_LIMIT, Directus's name); null = unbounded. */
  connections: number | null;
  connectionsPerIp: number | null;
  connectionsPerUser: number | null;
  subscriptionsPerConnection: number | null;
  /** A text frame longer than this is answered with an error (the connection stays); twice as long closes it (1009). */
  maxMessageBytes: number;
  /** A socket whose unsent data grows past this is a slow consumer: closed (1013) rather than buffered without bound. */
  maxBufferBytes: number;
}

/** What a user and a client address may hold in the subscription hub, across their sockets of both protocols. */
export interface SubscriptionLimits {
  /** Subscriptions per user (WEBSOCKETS_SUBSCRIPTION_LIMIT_PER_USER); null = unbounded. */
  perUser: number | null;
  /** Subscriptions per client address (WEBSOCKETS_SUBSCRIPTION_LIMIT_PER_IP). */
  perIp: number | null;
  /** Distinct queries (collection and query) per user (WEBSOCKETS_QUERY_LIMIT_PER_USER). */
  queriesPerUser: number | null;
  /** Distinct queries per client address (WEBSOCKETS_QUERY_LIMIT_PER_IP). */
  queriesPerIp: number | null;
}

export interface WebSocketConfig {
  enabled: boolean;
  path: string;
  /** public: no auth needed (auth optional); handshake: the first message must be `auth`; strict: `?access_token=`. */
  auth: WebSocketAuthMode;
  authTimeoutMs: number;
  heartbeatMs: number | null;
  limits: WebSocketLimits;
  /** Subscriptions and distinct queries per user and per client address, across both protocols' sockets. */
  subscriptionLimits: SubscriptionLimits;
}

/** A count limit: a positive integer, or `Infinity` / unset for none (Directus writes WEBSOCKETS_REST_CONN_LIMIT so). */
export function limit(env: Env, name: string, fallback: number | null): number | null {
  const v = str(env, name);
  if (v === null) return fallback;
  if (v.trim().toLowerCase() === 'infinity') return null;
  return int(env, name, 0, 1);
}

/** A socket's auth mode setting (`handshake` unless set). */
export function authModeOf(env: Env, name: string): WebSocketAuthMode {
  const auth = (env[name] ?? 'handshake').toLowerCase();
  if (auth !== 'public' && auth !== 'handshake' && auth !== 'strict')
    throw new ConfigError(name, `must be public, handshake or strict (got "${auth}")`);
  return auth;
}

/** A socket's path setting, with its leading slash. */
export function socketPathOf(env: Env, name: string, fallback: string): string {
  const path = env[name] ?? fallback;
  return path.startsWith('/') ? path : `/${path}`;
}

export function readWebSocketConfig(env: Env): WebSocketConfig {
  return {
    enabled: bool(env, 'WEBSOCKETS_ENABLED', false) && bool(env, 'WEBSOCKETS_REST_ENABLED', true),
    path: socketPathOf(env, 'WEBSOCKETS_REST_PATH', '/websocket'),
    auth: authModeOf(env, 'WEBSOCKETS_REST_AUTH'),
    // Directus gives both in seconds.
    authTimeoutMs: int(env, 'WEBSOCKETS_REST_AUTH_TIMEOUT', 10, 1) * 1000,
    heartbeatMs: bool(env, 'WEBSOCKETS_HEARTBEAT_ENABLED', true)
      ? int(env, 'WEBSOCKETS_HEARTBEAT_PERIOD', 30, 1) * 1000
      : null,
    // Bounded by default: every socket, subscription and distinct query is memory, and each distinct query a re-read
    // per write of its collection (README, settings).
    limits: {
      connections: limit(env, 'WEBSOCKETS_REST_CONN_LIMIT', null),
      connectionsPerIp: limit(env, 'WEBSOCKETS_CONN_LIMIT_PER_IP', 200),
      connectionsPerUser: limit(env, 'WEBSOCKETS_CONN_LIMIT_PER_USER', 50),
      subscriptionsPerConnection: limit(env, 'WEBSOCKETS_SUBSCRIPTION_LIMIT', 100),
      maxMessageBytes: size(env, 'WEBSOCKETS_MAX_MESSAGE_SIZE', '1mb', '64kb or 1mb'),
      maxBufferBytes: size(env, 'WEBSOCKETS_MAX_BUFFER', '4mb', '1mb or 16mb'),
    },
    subscriptionLimits: {
      perUser: limit(env, 'WEBSOCKETS_SUBSCRIPTION_LIMIT_PER_USER', 500),
      perIp: limit(env, 'WEBSOCKETS_SUBSCRIPTION_LIMIT_PER_IP', 2000),
      queriesPerUser: limit(env, 'WEBSOCKETS_QUERY_LIMIT_PER_USER', 50),
      queriesPerIp: limit(env, 'WEBSOCKETS_QUERY_LIMIT_PER_IP', 200),
    },
  };
}
