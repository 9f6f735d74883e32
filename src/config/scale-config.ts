/**
 * Settings for running under load and as several instances: rate limits, Redis, the pressure guard, client IP
 * resolution, query-string limits and shutdown (reference §8).
 */
import { bool, ConfigError, duration, float, int, str, type Env } from './env-values.js';

export interface RateLimitConfig {
  points: number;
  durationMs: number;
}

export interface RedisConfig {
  url: string;
  /** Prefix of every key and channel Strata uses, so several deployments can share one Redis. */
  namespace: string;
}

export interface ScaleConfig {
  rateLimiter: {
    enabled: boolean;
    store: 'memory' | 'redis';
    perIp: RateLimitConfig;
    /** One bucket for all traffic; null = off. */
    global: RateLimitConfig | null;
    /** Login attempts per account and client IP. */
    login: RateLimitConfig;
  };
  redis: RedisConfig | null;
  /** Without Redis: milliseconds between looks at the database's change counters (other instances' changes). */
  noticePollMs: number;
  pressure: { enabled: boolean; maxEventLoopDelayMs: number; maxEventLoopUtilization: number; sampleIntervalMs: number };
  /** Trust X-Forwarded-For (behind a load balancer); a custom header naming the client IP wins when set. */
  ip: { trustProxy: boolean; customHeader: string | null };
  querystring: { maxDepth: number; arrayLimit: number };
  /** How long a stopping instance waits for in-flight requests. */
  shutdownTimeoutMs: number;
}

function redisUrl(env: Env): string | null {
  const url = str(env, 'REDIS');
  if (url) {
    try {
      const parsed = new URL(url);
      if (!['redis:', 'rediss:'].includes(parsed.protocol)) throw new Error('protocol');
    } catch {
      throw new ConfigError('REDIS', 'expected a URL such as redis://127.0.0.1:6379');
    }
    return url;
  }
  const host = str(env, 'REDIS_HOST');
  if (!host) return null;
  const port = int(env, 'REDIS_PORT', 6379, 1, 65535);
  const user = str(env, 'REDIS_USERNAME');
  const password = str(env, 'REDIS_PASSWORD');
  const auth = user || password ? `${encodeURIComponent(user ?? '')}:${encodeURIComponent(password ?? '')}@` : '';
  return `redis://${auth}${host}:${port}`;
}

function limit(env: Env, prefix: string, points: number, seconds: number): RateLimitConfig {
  // Durations are whole seconds, as Directus reads them (and as the limiter stores count).
  return { points: int(env, `${prefix}_POINTS`, points, 1), durationMs: int(env, `${prefix}_DURATION`, seconds, 1, 86_400) * 1000 };
}

/** `embedded`: SQLite, whose queries run on the event loop, so a busy loop is its normal state under load. */
export function readScaleConfig(env: Env, embedded = false): ScaleConfig {
  const url = redisUrl(env);
  const store = (str(env, 'RATE_LIMITER_STORE') ?? (url ? 'redis' : 'memory')).toLowerCase();
  if (store !== 'memory' && store !== 'redis') throw new ConfigError('RATE_LIMITER_STORE', `expected memory or redis, got "${store}"`);
  if (store === 'redis' && !url) throw new ConfigError('RATE_LIMITER_STORE', 'redis needs REDIS (or REDIS_HOST) to be set');
  return {
    rateLimiter: {
      enabled: bool(env, 'RATE_LIMITER_ENABLED', true),
      store,
      perIp: limit(env, 'RATE_LIMITER', 50, 1),
      global: bool(env, 'RATE_LIMITER_GLOBAL_ENABLED', false) ? limit(env, 'RATE_LIMITER_GLOBAL', 1000, 1) : null,
      login: limit(env, 'RATE_LIMITER_LOGIN', 10, 60),
    },
    redis: url ? { url, namespace: str(env, 'REDIS_NAMESPACE') ?? 'strata' } : null,
    noticePollMs: duration(env, 'NOTICE_POLL_INTERVAL', '500'),
    pressure: {
      enabled: bool(env, 'PRESSURE_LIMITER_ENABLED', !embedded),
      maxEventLoopDelayMs: int(env, 'PRESSURE_LIMITER_MAX_EVENT_LOOP_DELAY', 500, 1),
      maxEventLoopUtilization: float(env, 'PRESSURE_LIMITER_MAX_EVENT_LOOP_UTILIZATION', 0.99, 0.01, 1),
      sampleIntervalMs: int(env, 'PRESSURE_LIMITER_SAMPLE_INTERVAL', 250, 10),
    },
    ip: { trustProxy: bool(env, 'IP_TRUST_PROXY', false), customHeader: str(env, 'IP_CUSTOM_HEADER')?.toLowerCase() ?? null },
    querystring: { maxDepth: int(env, 'QUERYSTRING_MAX_PARSE_DEPTH', 10, 1, 100), arrayLimit: int(env, 'QUERYSTRING_ARRAY_LIMIT', 500, 1, 100_000) },
    shutdownTimeoutMs: duration(env, 'SHUTDOWN_TIMEOUT', '10s'),
  };
}
