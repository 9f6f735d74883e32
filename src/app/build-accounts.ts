/**
 * Start-up: who a request stands for (tokens, sessions, the logins still alive) and the account services over them
 * (login, refresh and logout, two-factor, what the signed-in user may see).
 */
import { AccountabilityResolver } from '../auth/accountability-resolver.js';
import { AuthService } from '../auth/auth-service.js';
import type { LoginAttempts } from '../auth/login-attempts.js';
import { LoginLiveness } from '../auth/login-liveness.js';
import { MeService } from '../auth/me-service.js';
import { providerRefreshCheck } from '../auth/providers/provider-refresh.js';
import { ProviderRegistry } from '../auth/providers/provider-registry.js';
import { SignOnService } from '../auth/providers/sign-on-service.js';
import { SignOnUsers } from '../auth/providers/sign-on-users.js';
import { providerUserCreator } from '../auth/providers/provider-user-create.js';
import { Sessions } from '../auth/sessions.js';
import { TfaService } from '../auth/tfa-service.js';
import { consume, type RateLimiters } from '../bus/rate-limiters.js';
import type { CacheRegistry } from '../cache/cache-registry.js';
import type { Clock } from '../config/clock.js';
import type { Config } from '../config/config.js';
import type { Database } from '../db/connection.js';
import { SignOnFlowsRepository } from '../db/repositories/sign-on-flows.js';
import type { EventEmitter } from '../engine/events/event-emitter.js';
import type { ChangeEvents } from '../engine/write/change-events.js';
import type { ItemsWriter } from '../engine/write/items-writer.js';
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
  rateLimiters: RateLimiters;
  /** Failed logins per user (shared by the workers of one instance: see ContextOptions.counts). */
  loginAttempts: LoginAttempts;
  logins: LoginLiveness;
  clock: Clock;
  changes: ChangeEvents;
  events?: EventEmitter;
  permissions: PermissionStore;
  schema: SchemaStore;
  /** Creates the users of first sign-ins at providers, as any write (activity, revision, hooks). */
  writer: ItemsWriter;
  /**
   * Where sign-on failures at a provider are logged: an identity provider's (their class and code only), a
   * directory's (down, a refused service account; never a password).
   */
  warn?: (message: string) => void;
}

export interface Accounts {
  auth: AuthService;
  tfa: TfaService;
  me: MeService;
  signOn: SignOnService;
}

export function buildAccounts(parts: AccountParts): Accounts {
  const { db, config, rateLimiters, clock, changes } = parts;
  const auth = new AuthService(
    db,
    parts.secret,
    config,
    parts.loginAttempts,
    async (key) => {
      if (rateLimiters.login) await consume(rateLimiters.login, key);
    },
    parts.logins,
    clock,
    changes,
    parts.events ?? null,
  );
  const warn = (message: string) => parts.warn?.(message);
  const createUser = providerUserCreator(parts.writer);
  const registry = new ProviderRegistry(config.authProviders.providers, { db, changes, createUser, warn });
  // Only a provider that checks credentials itself (ldap) is asked again at a refresh.
  if (registry.hasCredentials()) auth.checkOnRefresh(providerRefreshCheck(db, registry));
  return {
    auth,
    tfa: new TfaService(db, 'Strata', clock, changes),
    me: new MeService(db, parts.permissions, () => parts.schema.current),
    signOn: new SignOnService(
      registry,
      auth,
      new SignOnUsers(db, changes, createUser),
      config,
      parts.secret,
      new SignOnFlowsRepository(db),
      (details, message) => parts.warn?.(`${message}: ${JSON.stringify(details)}`),
    ),
  };
}
