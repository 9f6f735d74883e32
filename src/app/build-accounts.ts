/**
 * Start-up: who a request stands for (tokens, sessions, the logins still alive) and the account services over them
 * (login, refresh and logout, two-factor, what the signed-in user may see).
 */
import { AccountabilityResolver } from '../auth/accountability-resolver.js';
import { AuthService } from '../auth/auth-service.js';
import { LoginAttempts } from '../auth/login-attempts.js';
import { LoginLiveness } from '../auth/login-liveness.js';
import { MeService } from '../auth/me-service.js';
import { Sessions } from '../auth/sessions.js';
import { TfaService } from '../auth/tfa-service.js';
import { consume, type RateLimiters } from '../bus/rate-limiters.js';
import type { RedisClient } from '../bus/redis-connection.js';
import type { CacheRegistry } from '../cache/cache-registry.js';
import type { Clock } from '../config/clock.js';
import type { Config } from '../config/config.js';
import type { Database } from '../db/connection.js';
import type { EventEmitter } from '../engine/events/event-emitter.js';
import type { ChangeEvents } from '../engine/write/change-events.js';
import type { PermissionStore } from '../permissions/permission-store.js';
import type { SchemaStore } from '../schema/schema-store.js';

export interface Callers {
  logins: LoginLiveness;
  accountability: AccountabilityResolver;
}

export function buildCallers(
  db: Database,
  secret: string,
  config: Config,
  clock: Clock,
  caches: CacheRegistry,
): Callers {
  const logins = new LoginLiveness(new Sessions(db, clock), config.accessTokenTtlMs, clock, caches);
  const accountability = new AccountabilityResolver(db, secret, config.accessTokenTtlMs, logins, clock, caches);
  return { logins, accountability };
}

export interface AccountParts {
  db: Database;
  secret: string;
  config: Config;
  redis: RedisClient | null;
  rateLimiters: RateLimiters;
  logins: LoginLiveness;
  clock: Clock;
  changes: ChangeEvents;
  events?: EventEmitter;
  permissions: PermissionStore;
  schema: SchemaStore;
}

export interface Accounts {
  auth: AuthService;
  tfa: TfaService;
  me: MeService;
}

export function buildAccounts(parts: AccountParts): Accounts {
  const { db, config, redis, rateLimiters, clock, changes } = parts;
  const namespace = config.redis?.namespace ?? 'strata';
  const auth = new AuthService(
    db,
    parts.secret,
    config,
    new LoginAttempts(config.rateLimiter.store === 'redis' ? redis : null, namespace),
    async (key) => {
      if (rateLimiters.login) await consume(rateLimiters.login, key);
    },
    parts.logins,
    clock,
    changes,
    parts.events ?? null,
  );
  return {
    auth,
    tfa: new TfaService(db, 'Strata', clock, changes),
    me: new MeService(db, parts.permissions, () => parts.schema.current),
  };
}
