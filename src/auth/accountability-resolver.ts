/**
 * Token → Accountability. JWTs are verified (cached by fast-jwt); the user's roles, policies and admin/app flags
 * are recomputed from the database, as Directus 11 does, and kept for a few seconds so a request costs no round trip.
 */
import { LRUCache } from 'lru-cache';
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

interface Cached {
  at: number;
  value: (UserAccountability & { allow: ReturnType<typeof allowList>[] }) | null;
}

export class AccountabilityResolver {
  private readonly tokens: AccessTokens;
  private readonly users = new LRUCache<string, Cached>({ max: CACHE_MAX });
  private readonly staticTokens = new LRUCache<string, Cached>({ max: CACHE_MAX });
  private publicPolicies: { at: number; ids: string[] } | null = null;
  /**
   * Moves on at every `clear()`: a lookup that was already on its way read the rows as they were before the change
   * that cleared, so it answers its own request but is not kept.
   */
  private generation = 0;
  /**
   * Lookups on their way, per cache and key, with the generation they started in: a rights notice makes every live
   * socket of a user re-resolve at once, and they share one lookup instead of one each.
   */
  private readonly loading = new Map<string, { generation: number; promise: Promise<Cached['value']> }>();
  private readonly sessions: Sessions;

  constructor(
    private readonly db: Database,
    secret: string,
    ttlMs = 900_000,
    private readonly logins: LoginLiveness | null = null,
    clock: Clock = systemClock,
  ) {
    this.tokens = new AccessTokens(secret, ttlMs, clock);
    this.sessions = new Sessions(db, clock);
  }

  /**
   * The caller from what is cached, without waiting for anything: a fresh public policy list, a fresh static-token
   * user, or a JWT (verified here) of a fresh user whose token names no session and no login to check. Undefined
   * when the answer needs a lookup (then `resolve`). Throws as `resolve` does for a token that fails.
   */
  resolveCached(token: string | null, ip: string | null): Accountability | undefined {
    const now = Date.now();
    if (!token) {
      const publicPolicies = this.publicPolicies;
      if (!publicPolicies || now - publicPolicies.at >= CACHE_MS) return undefined;
      return { ...publicAccountability(ip), policies: publicPolicies.ids };
    }
    let hit: Cached | undefined;
    if (looksLikeJwt(token)) {
      const claims = this.tokens.verify(token);
      if (claims.session !== undefined || (typeof claims.sid === 'string' && this.logins)) return undefined;
      hit = this.users.get(claims.id);
    } else {
      hit = this.staticTokens.get(token);
    }
    if (!hit || now - hit.at >= CACHE_MS) return undefined;
    return this.accountabilityOf(hit.value, ip);
  }

  async resolve(token: string | null, ip: string | null): Promise<Accountability> {
    const quick = this.resolveCached(token, ip);
    if (quick) return quick;
    if (!token) return { ...publicAccountability(ip), policies: await this.publicPolicyIds() };
    let user: Cached['value'];
    if (looksLikeJwt(token)) {
      const claims = this.tokens.verify(token);
      // A session JWT lives only as long as its session: a logout ends it at once, on every instance.
      if (claims.session !== undefined && !(await this.sessions.find(claims.session)))
        throw new InvalidCredentialsError();
      // An access token of a login that was logged out stops working at once (a memory lookup per request).
      if (typeof claims.sid === 'string' && this.logins && !(await this.logins.isLive(claims.sid)))
        throw new InvalidCredentialsError();
      user = await this.cached(this.users, `u:${claims.id}`, claims.id, () =>
        loadUserAccountability(this.db, 'id', claims.id),
      );
    } else {
      user = await this.cached(this.staticTokens, `t:${token}`, token, () =>
        loadUserAccountability(this.db, 'token', token),
      );
    }
    return this.accountabilityOf(user, ip);
  }

  private accountabilityOf(user: Cached['value'], ip: string | null): Accountability {
    if (!user) throw new InvalidCredentialsError();
    if (!ipAllowed(user.allow, ip)) throw new InvalidIpError();
    const { allow: _allow, ipAccess: _ipAccess, ...accountability } = user;
    return { ...accountability, ip };
  }

  /** Drops cached users (after user, role or policy changes). */
  clear(): void {
    this.generation += 1;
    this.users.clear();
    this.staticTokens.clear();
    this.publicPolicies = null;
  }

  private async cached(
    map: LRUCache<string, Cached>,
    loadingKey: string,
    key: string,
    load: () => Promise<UserAccountability | null>,
  ): Promise<Cached['value']> {
    const hit = map.get(key);
    const now = Date.now();
    if (hit && now - hit.at < CACHE_MS) return hit.value;
    const generation = this.generation;
    const shared = this.loading.get(loadingKey);
    if (shared && shared.generation === generation) return shared.promise;
    const promise = load().then((loaded) => {
      const value = loaded ? { ...loaded, allow: loaded.ipAccess.map(allowList) } : null;
      if (generation === this.generation) map.set(key, { at: now, value });
      return value;
    });
    const entry = { generation, promise };
    this.loading.set(loadingKey, entry);
    const forget = () => {
      if (this.loading.get(loadingKey) === entry) this.loading.delete(loadingKey);
    };
    promise.then(forget, forget);
    return promise;
  }

  private async publicPolicyIds(): Promise<string[]> {
    const now = Date.now();
    if (this.publicPolicies && now - this.publicPolicies.at < CACHE_MS) return this.publicPolicies.ids;
    const generation = this.generation;
    const ids = await new AccessRepository(this.db).publicPolicies();
    if (generation === this.generation) this.publicPolicies = { at: now, ids };
    return ids;
  }
}
