/** WebSocket settings (Directus's names): /websocket is off unless WEBSOCKETS_ENABLED and WEBSOCKETS_REST_ENABLED. */
import { bool, ConfigError, int, type Env } from './env-values.js';

export type WebSocketAuthMode = 'public' | 'handshake' | 'strict';

export interface WebSocketConfig {
  enabled: boolean;
  path: string;
  /** public: no auth needed (auth optional); handshake: the first message must be `auth`; strict: `?access_token=`. */
  auth: WebSocketAuthMode;
  authTimeoutMs: number;
  heartbeatMs: number | null;
}

export function readWebSocketConfig(env: Env): WebSocketConfig {
  const auth = (env.WEBSOCKETS_REST_AUTH ?? 'handshake').toLowerCase();
  if (auth !== 'public' && auth !== 'handshake' && auth !== 'strict')
    throw new ConfigError('WEBSOCKETS_REST_AUTH', `must be public, handshake or strict (got "${auth}")`);
  const path = env.WEBSOCKETS_REST_PATH ?? '/websocket';
  return {
    enabled: bool(env, 'WEBSOCKETS_ENABLED', false) && bool(env, 'WEBSOCKETS_REST_ENABLED', true),
    path: path.startsWith('/') ? path : `/${path}`,
    auth,
    // Directus gives both in seconds.
    authTimeoutMs: int(env, 'WEBSOCKETS_REST_AUTH_TIMEOUT', 10, 1) * 1000,
    heartbeatMs: bool(env, 'WEBSOCKETS_HEARTBEAT_ENABLED', true)
      ? int(env, 'WEBSOCKETS_HEARTBEAT_PERIOD', 30, 1) * 1000
      : null,
  };
}
