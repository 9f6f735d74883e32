/**
 * Failed logins per user (settings `auth_login_attempts`, Directus docs: Authentication): when a user exhausts them the account is
 * suspended. Counted in the rate-limiter store, so several instances count together when Redis is set, and the workers
 * of one instance (WORKERS > 1) without Redis count in their primary, as the rate limits do (bus/rate-limiters.ts).
 */
import cluster from 'node:cluster';
import {
  RateLimiterCluster,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { CLUSTER_TIMEOUT_MS } from '../bus/rate-limiters.js';
import type { RedisClient } from '../bus/redis-connection.js';

export class LoginAttempts {
  private readonly limiters = new Map<number, RateLimiterAbstract>();

  constructor(
    private readonly redis: RedisClient | null,
    private readonly namespace: string,
  ) {}

  /** Records a failure; true when this one used up the allowance. */
  async failed(user: string, allowed: number): Promise<boolean> {
    try {
      await this.limiter(allowed).consume(user, 1);
      return false;
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return true;
      throw rejection;
    }
  }

  async reset(user: string, allowed: number): Promise<void> {
    await this.limiter(allowed)
      .delete(user)
      .catch(() => false);
  }

  private limiter(allowed: number): RateLimiterAbstract {
    let limiter = this.limiters.get(allowed);
    if (!limiter) {
      // `allowed` failures are tolerated; the one after them suspends (as Directus counts).
      const options = { keyPrefix: `${this.namespace}:login-attempts:${allowed}`, points: allowed, duration: 0 };
      const memory = new RateLimiterMemory(options);
      if (this.redis)
        limiter = new RateLimiterRedis({
          ...options,
          storeClient: this.redis,
          useRedisPackage: true,
          insuranceLimiter: memory,
        });
      else if (cluster.isWorker) limiter = new RateLimiterCluster({ ...options, timeoutMs: CLUSTER_TIMEOUT_MS });
      else limiter = memory;
      this.limiters.set(allowed, limiter);
    }
    return limiter;
  }
}
