/**
 * The response cache (docs/design/response-cache.md): Directus's CACHE_* settings, plus the bounds of the memory
 * store. Reads are answered from memory (or Redis) and dropped precisely when a collection they read is written.
 */
import { bool, ConfigError, duration, int, size, str, type Env } from './env-values.js';

export interface ResponseCacheConfig {
  enabled: boolean;
  store: 'memory' | 'redis';
  ttlMs: number;
  /** Prefix of the cache's Redis keys (after REDIS_NAMESPACE). */
  namespace: string;
  /** Directus purges everything on a write; Strata always drops precisely. Here it only makes clients revalidate. */
  autoPurge: boolean;
  /** A client's `Cache-Control: no-store` bypasses the cache. */
  skipAllowed: boolean;
  /** `s-maxage` of cacheable answers, in seconds; null = none. */
  sMaxAge: number | null;
  /** Answers larger than this (bytes) are not kept. */
  valueMaxSize: number;
  /** Name of a response header saying HIT or MISS; null = none (as Directus by default). */
  statusHeader: string | null;
  /** The memory store's bounds. */
  memoryMaxEntries: number;
  memoryMaxSize: number;
}

const HEADER_NAME = /^[A-Za-z0-9-]{1,64}$/;

function optionalSeconds(env: Env, name: string): number | null {
  const raw = str(env, name)?.trim().toLowerCase();
  if (raw === undefined || raw === '' || raw === 'false') return null;
  return int(env, name, 0, 0, 31_536_000);
}

function valueMaxSize(env: Env): number {
  const raw = str(env, 'CACHE_VALUE_MAX_SIZE')?.trim().toLowerCase();
  // Directus's `false` means no limit; ours is bounded anyway (by the store's size): 8 MB.
  if (raw === undefined || raw === '' || raw === 'false') return 8 * 1024 * 1024;
  return size(env, 'CACHE_VALUE_MAX_SIZE', '8mb', '512kb or 8mb');
}

export function readCacheConfig(env: Env, redis: boolean): ResponseCacheConfig {
  const store = (str(env, 'CACHE_STORE') ?? 'memory').toLowerCase();
  if (store !== 'memory' && store !== 'redis')
    throw new ConfigError('CACHE_STORE', `expected memory or redis, got "${store}"`);
  const enabled = bool(env, 'CACHE_ENABLED', false);
  if (enabled && store === 'redis' && !redis)
    throw new ConfigError('CACHE_STORE', 'redis needs REDIS (or REDIS_HOST) to be set');
  const statusHeader = str(env, 'CACHE_STATUS_HEADER')?.trim() || null;
  if (statusHeader !== null && !HEADER_NAME.test(statusHeader))
    throw new ConfigError('CACHE_STATUS_HEADER', `expected a header name such as X-Cache, got "${statusHeader}"`);
  return {
    enabled,
    store,
    ttlMs: duration(env, 'CACHE_TTL', '5m'),
    namespace: str(env, 'CACHE_NAMESPACE') ?? 'system-cache',
    autoPurge: bool(env, 'CACHE_AUTO_PURGE', false),
    skipAllowed: bool(env, 'CACHE_SKIP_ALLOWED', false),
    sMaxAge: optionalSeconds(env, 'CACHE_CONTROL_S_MAXAGE'),
    valueMaxSize: valueMaxSize(env),
    statusHeader,
    memoryMaxEntries: int(env, 'CACHE_MEMORY_MAX_ENTRIES', 10_000, 1, 10_000_000),
    memoryMaxSize: size(env, 'CACHE_MEMORY_MAX_SIZE', '64mb', '64mb or 1gb'),
  };
}
