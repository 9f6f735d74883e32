/**
 * Token → Accountability. JWTs are verified (cached by fast-jwt); the user's roles, policies and admin/app flags
 * are recomputed from the database, as Directus 11 does, and kept for a few seconds so a request costs no round trip.
 */
import type { Cache } from '../cache/cache.js';
import { CacheRegistry } from '../cache/cache-registry.js';
import { systemClock, type Clock } from '../config/clock.js';
import type { Database } from '../db/connection.js';
import { AccessRepository } from '../db/repositories/access.js';
import { InvalidCredentialsError } from '../errors/catalogue.js';
import { publicAccountability, type Accountability } from '../permissions/accountability.js';
import { AccessTokens, looksLikeJwt } from './access-tokens.js';
import { allowList, ipAllowed } from './ip-allow-list.js';
import type { LoginLiveness } from './login-liveness.js';
import { Sessions } from './sessions.js';
import { loadUserAccountability, type UserAccountability } from './user-accountability.js';
import { InvalidIpError } from '../errors/catalogue.js';

const CACHE_MS = 5_000;
const CACHE_MAX = 10_000;

/** A user as cached (null: no such user, or not active). */
type Cached = (UserAccountability & { allow: ReturnType<typeof allowList>[] }) | null;

export class AccountabilityResolver {
  private readonly tokens: AccessTokens;
  /**
   * By user id, by static token, and the public policies (one entry). A lookup that was already on its way when a
   * change cleared them answers its own request but is not kept; lookups of one key share one promise (a rights
   * notice makes every live socket of a user re-resolve at once).
   */
  private readonly users: Cache<string, Cached>;
  private readonly staticTokens: Cache<string, Cached>;
  private readonly publicPolicies: Cache<'', string[]>;
  private readonly sessions: Sessions;

  constructor(
    private readonly db: Database,
    secret: string,
    ttlMs = 900_000,
    private readonly logins: LoginLiveness | null = null,
    clock: Clock = systemClock,
    caches = new CacheRegistry(),
  ) {
    this.tokens = new AccessTokens(secret, ttlMs, clock);
    this.sessions = new Sessions(db, clock);
    this.users = caches.create('users', { max: CACHE_MAX, ttlMs: CACHE_MS });
    this.staticTokens = caches.create('static-tokens', { max: CACHE_MAX, ttlMs: CACHE_MS });
    this.publicPolicies = caches.create('public-policies', { max: 1, ttlMs: CACHE_MS });
  }

  /**
   * The caller from what is cached, without waiting for anything: a fresh public policy list, a fresh static-token
   * user, or a JWT (verified here) of a fresh user whose token names no session and no login to check. Undefined
   * when the answer needs a lookup (then `resolve`). Throws as `resolve` does for a token that fails.
   */
  resolveCached(token: string | null, ip: string | null): Accountability | undefined {
    if (!token) {
      const ids = this.publicPolicies.get('');
      return ids && { ...publicAccountability(ip), policies: ids };
    }
    let hit: Cached | undefined;
    if (looksLikeJwt(token)) {
      const claims = this.tokens.verify(token);
      if (claims.session !== undefined || (typeof claims.sid === 'string' && this.logins)) return undefined;
      hit = this.users.get(claims.id);
    } else {
      hit = this.staticTokens.get(token);
    }
    if (hit === undefined) return undefined;
    return this.accountabilityOf(hit, ip);
  }

  async resolve(token: string | null, ip: string | null): Promise<Accountability> {
    const quick = this.resolveCached(token, ip);
    if (quick) return quick;
    if (!token) return { ...publicAccountability(ip), policies: await this.publicPolicyIds() };
    let user: Cached;
    if (looksLikeJwt(token)) {
      const claims = this.tokens.verify(token);
      // A session JWT lives only as long as its session: a logout ends it at once, on every instance.
      if (claims.session !== undefined && !(await this.sessions.find(claims.session)))
        throw new InvalidCredentialsError();
      // An access token of a login that was logged out stops working at once (a memory lookup per request).
      if (typeof claims.sid === 'string' && this.logins && !(await this.logins.isLive(claims.sid)))
        throw new InvalidCredentialsError();
      user = await this.users.load(claims.id, () => withAllowLists(loadUserAccountability(this.db, 'id', claims.id)));
    } else {
      user = await this.staticTokens.load(token, () => withAllowLists(loadUserAccountability(this.db, 'token', token)));
    }
    return this.accountabilityOf(user, ip);
  }

  private accountabilityOf(user: Cached, ip: string | null): Accountability {
    if (!user) throw new InvalidCredentialsError();
    if (!ipAllowed(user.allow, ip)) throw new InvalidIpError();
    const { allow: _allow, ipAccess: _ipAccess, ...accountability } = user;
    return { ...accountability, ip };
  }

  /** Drops cached users (tests; a running Strata clears through cache/invalidation.ts). */
  clear(): void {
    this.users.clear();
    this.staticTokens.clear();
    this.publicPolicies.clear();
  }

  private publicPolicyIds(): Promise<string[]> {
    return this.publicPolicies.load('', () => new AccessRepository(this.db).publicPolicies());
  }
}

async function withAllowLists(loading: Promise<UserAccountability | null>): Promise<Cached> {
  const loaded = await loading;
  return loaded ? { ...loaded, allow: loaded.ipAccess.map(allowList) } : null;
}
