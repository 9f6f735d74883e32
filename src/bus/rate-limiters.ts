/**
 * Rate limits (Directus docs: Security and limits) with rate-limiter-flexible: per client IP on every route, an optional global bucket,
 * and a stricter one for logins per account and IP. With Redis the counts are shared by every instance; while Redis
 * is away each instance falls back to counting in memory (the insurance limiter) and keeps serving.
 * Several workers (WORKERS) without Redis count in their primary (RateLimiterCluster; the primary holds the
 * RateLimiterClusterMaster, workers/supervisor.ts), so a limit is exact across the workers of one instance.
 * Here, beside the bus, rather than in http/: the application context builds them over the same Redis client, and
 * both the HTTP hook and the login service only take points.
 */
import cluster from 'node:cluster';
import {
  RateLimiterCluster,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { RateLimitConfig, ScaleConfig } from '../config/scale-config.js';
import type { RedisClient } from '../bus/redis-connection.js';
import { RequestsExceededError, ServiceUnavailableError } from '../errors/catalogue.js';

export interface RateLimiters {
  perIp: RateLimiterAbstract | null;
  global: RateLimiterAbstract | null;
  login: RateLimiterAbstract | null;
}

/** How long a worker waits for its primary's count (the primary only counts in memory: far less, even loaded). */
export const CLUSTER_TIMEOUT_MS = 5_000;

/** One limiter: in memory (in the primary's, for a worker of several), or in Redis with an in-memory fallback while Redis is away. */
export function limiter(
  name: string,
  limit: RateLimitConfig,
  redis: RedisClient | null,
  namespace: string,
): RateLimiterAbstract {
  const options = {
    keyPrefix: `${namespace}:rl:${name}`,
    points: limit.points,
    duration: Math.round(limit.durationMs / 1000),
  };
  if (!redis && cluster.isWorker) return new RateLimiterCluster({ ...options, timeoutMs: CLUSTER_TIMEOUT_MS });
  const memory = new RateLimiterMemory(options);
  if (!redis) return memory;
  return new RateLimiterRedis({ ...options, storeClient: redis, useRedisPackage: true, insuranceLimiter: memory });
}

export function createRateLimiters(
  config: ScaleConfig['rateLimiter'],
  redis: RedisClient | null,
  namespace: string,
): RateLimiters {
  if (!config.enabled) return { perIp: null, global: null, login: null };
  const store = config.store === 'redis' ? redis : null;
  return {
    perIp: limiter('ip', config.perIp, store, namespace),
    global: config.global ? limiter('global', config.global, store, namespace) : null,
    login: limiter('login', config.login, store, namespace),
  };
}

/** Takes one point for `key`; over the limit → 429 REQUESTS_EXCEEDED with the time until the next point. */
export async function consume(rateLimiter: RateLimiterAbstract, key: string): Promise<void> {
  try {
    await rateLimiter.consume(key, 1);
  } catch (rejection) {
    // The count itself was not answered (a cluster primary busy past its timeout): a coded refusal, not a 500.
    if (!(rejection instanceof RateLimiterRes))
      throw new ServiceUnavailableError('rate-limiter', 'The request count could not be read; try again');
    const waitMs = rejection.msBeforeNext;
    throw new RequestsExceededError(
      Math.max(1, Math.ceil(waitMs / 1000)),
      rateLimiter.points,
      new Date(Date.now() + waitMs),
    );
  }
}
