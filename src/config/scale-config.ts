/**
 * Settings for running under load and as several instances: rate limits, Redis, the pressure guard, client IP
 * resolution, query-string limits and shutdown (Directus docs: Security and limits).
 */
import { isIP } from 'node:net';
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
  pressure: {
    enabled: boolean;
    maxEventLoopDelayMs: number;
    maxEventLoopUtilization: number;
    sampleIntervalMs: number;
  };
  /**
   * Which proxies' X-Forwarded-For to follow (Fastify's `trustProxy`): false, a hop count, or the addresses/CIDRs
   * of trusted proxies. A custom header naming the client IP wins when set.
   */
  ip: { trustProxy: TrustProxy; customHeader: string | null };
  querystring: { maxDepth: number; arrayLimit: number };
  /** How long a stopping instance waits for in-flight requests. */
  shutdownTimeoutMs: number;
}

export type TrustProxy = false | number | string[];

const PROXY_ADDRESS = /^(?:[0-9.]+|[0-9a-fA-F:.]+)(?:\/\d{1,3})?$/;
const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * IP_TRUST_PROXY as Express and Directus read it: `false`; `true` = one hop (the address the nearest proxy reports,
 * the last X-Forwarded-For entry: earlier entries are the client's to write); a hop count; or a comma list of
 * trusted proxy addresses, CIDRs or the names loopback / linklocal / uniquelocal.
 */
function trustProxy(env: Env): TrustProxy {
  const raw = str(env, 'IP_TRUST_PROXY')?.trim();
  if (raw === undefined) return false;
  const lower = raw.toLowerCase();
  if (['false', 'no', 'off'].includes(lower)) return false;
  if (['true', 'yes', 'on'].includes(lower)) return 1;
  if (/^\d+$/.test(raw)) return Number(raw) === 0 ? false : int(env, 'IP_TRUST_PROXY', 0, 0, 100);
  const entries = raw
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  const bad = entries.find(
    (e) => !PROXY_NAMES.has(e.toLowerCase()) && !(PROXY_ADDRESS.test(e) && isIP(e.split('/')[0]!) !== 0),
  );
  if (bad !== undefined || entries.length === 0)
    throw new ConfigError(
      'IP_TRUST_PROXY',
      `expected true, false, a hop count or a comma list of proxy addresses/CIDRs, got "${bad ?? raw}"`,
    );
  return entries.map((e) => (PROXY_NAMES.has(e.toLowerCase()) ? e.toLowerCase() : e));
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
  return {
    points: int(env, `${prefix}_POINTS`, points, 1),
    durationMs: int(env, `${prefix}_DURATION`, seconds, 1, 86_400) * 1000,
  };
}

/** `embedded`: SQLite, whose queries run on the event loop, so a busy loop is its normal state under load. */
export function readScaleConfig(env: Env, embedded = false): ScaleConfig {
  const url = redisUrl(env);
  const store = (str(env, 'RATE_LIMITER_STORE') ?? (url ? 'redis' : 'memory')).toLowerCase();
  if (store !== 'memory' && store !== 'redis')
    throw new ConfigError('RATE_LIMITER_STORE', `expected memory or redis, got "${store}"`);
  if (store === 'redis' && !url)
    throw new ConfigError('RATE_LIMITER_STORE', 'redis needs REDIS (or REDIS_HOST) to be set');
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
    ip: { trustProxy: trustProxy(env), customHeader: str(env, 'IP_CUSTOM_HEADER')?.toLowerCase() ?? null },
    querystring: {
      maxDepth: int(env, 'QUERYSTRING_MAX_PARSE_DEPTH', 10, 1, 100),
      arrayLimit: int(env, 'QUERYSTRING_ARRAY_LIMIT', 500, 1, 100_000),
    },
    shutdownTimeoutMs: duration(env, 'SHUTDOWN_TIMEOUT', '10s'),
  };
}
