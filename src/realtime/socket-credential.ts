/**
 * The token a socket (/websocket or graphql-ws) authenticated with, kept as valid as a REST request would find it
 * (docs/design/realtime-fan-out.md): its `exp` is compared with the injected clock, it is re-resolved (a logout or a revoked session)
 * when the last resolve is older than RECHECK_MS, and a timer at `exp` wakes an idle socket (`onExpiry`). A rights
 * notice (rights-notices.ts: access rows changed, its login ended) makes it stale at once and wakes the socket
 * (`onNotice`): until a resolve that started after the notice has answered, the socket's rights are not trusted. The
 * socket is counted against its user's connection limit (WEBSOCKETS_CONN_LIMIT_PER_USER) while it holds a user's
 * token. Both protocols decide for themselves what a lost token means (TOKEN_EXPIRED and the Public fallback, or 4403).
 */
import { ServiceError } from '../errors/catalogue.js';
import type { Accountability } from '../permissions/accountability.js';
import type { LiveCallerApi } from '../app/ports.js';
import type { RightsWatcher } from './rights-notices.js';
import { claimsOf } from './websocket/auth-message.js';
import type { SocketCounter } from './socket-counters.js';

/** While messages flow, the token is re-resolved (logout, revoked session) at most this often. */
const RECHECK_MS = 1000;
const MAX_TIMER_MS = 2 ** 31 - 1;

export class SocketCredential implements RightsWatcher {
  /** The access token in use; null: none (the Public policy, or not authenticated yet). */
  token: string | null = null;
  login: string | null = null;
  sessionBound = false;
  private expiresAt: number | null = null;
  /** When the token was last resolved (on the clock, so tests move past RECHECK_MS instead of sleeping). */
  private checkedAt = 0;
  /** Rights notices heard, and how many had been heard when the last resolve that answered started. */
  private notices = 0;
  private confirmed = 0;
  private countedUser: string | null = null;
  private closed = false;
  private expiryTimer: NodeJS.Timeout | null = null;
  private readonly unwatch: () => void;

  constructor(
    private readonly context: LiveCallerApi,
    private readonly registry: SocketCounter,
    private readonly ip: string | null,
    private readonly onExpiry: () => void,
    /** A rights notice: called synchronously, the credential being stale from now until a fresh resolve. */
    private readonly onNotice: () => void,
  ) {
    this.unwatch = context.rights.watch(this);
  }

  rightsChanged(): void {
    this.notices++;
    this.onNotice();
  }

  /**
   * Resolves `token` and makes it the socket's. Throws what the resolve throws for a token that is not valid, and
   * REQUESTS_EXCEEDED when its user holds as many sockets as allowed; the previous token then stays.
   */
  async use(token: string): Promise<Accountability> {
    const notices = this.notices;
    const accountability = await this.context.accountability.resolve(token, this.ip);
    const user = accountability.user ?? null;
    if (user !== this.countedUser) {
      if (user !== null && !(await this.registry.claimUser(user)))
        throw new ServiceError('REQUESTS_EXCEEDED', 429, 'This user has as many WebSocket connections as allowed.');
      // The claim may have been answered after the socket closed, or after another `auth` of it counted the same user.
      if (user !== null && (this.closed || user === this.countedUser)) this.registry.releaseUser(user);
      else {
        this.releaseUser();
        this.countedUser = user;
      }
      if (this.closed) throw new ServiceError('AUTH_FAILED', 401, 'Authentication failed.');
    }
    this.token = token;
    const claims = claimsOf(token);
    this.login = typeof claims?.sid === 'string' ? claims.sid : null;
    this.sessionBound = claims?.session !== undefined;
    this.checkedAt = this.context.clock.now();
    this.confirmed = notices;
    this.watchExpiry(claims);
    return accountability;
  }

  /** The Public policy's accountability (not counted against any user); a socket without a token trusts it so. */
  async publicAccess(): Promise<Accountability> {
    const notices = this.notices;
    const accountability = await this.context.accountability.resolve(null, this.ip);
    if (this.token === null) this.confirmed = notices;
    return accountability;
  }

  /** The token has passed its `exp` on the clock. */
  expired(): boolean {
    return this.token !== null && this.expiresAt !== null && this.context.clock.now() >= this.expiresAt;
  }

  /**
   * The rights must be resolved again before they are trusted: a rights notice came after the last resolve began, or
   * the token has expired, or it was last resolved more than RECHECK_MS ago.
   */
  stale(): boolean {
    if (this.confirmed !== this.notices) return true;
    return this.token !== null && (this.expired() || this.context.clock.now() - this.checkedAt > RECHECK_MS);
  }

  /**
   * Resolves the token again (a permission change is picked up on the way). When it no longer stands, the socket
   * holds no token any more (its user is released, the timer stopped) and the resolve's error is thrown.
   */
  async refresh(): Promise<Accountability> {
    const token = this.token;
    if (token === null) throw new ServiceError('AUTH_FAILED', 401, 'Authentication failed.');
    const notices = this.notices;
    try {
      const accountability = await this.context.accountability.resolve(token, this.ip);
      this.checkedAt = this.context.clock.now();
      this.confirmed = notices;
      return accountability;
    } catch (error) {
      this.drop();
      throw error;
    }
  }

  /** The socket closed: it hears no more notices and holds no token. */
  close(): void {
    this.closed = true;
    this.unwatch();
    this.drop();
  }

  /** The socket no longer holds a token: its user's count is released and the expiry timer stopped. */
  drop(): void {
    this.token = null;
    this.login = null;
    this.sessionBound = false;
    this.expiresAt = null;
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
    this.expiryTimer = null;
    this.releaseUser();
  }

  private releaseUser(): void {
    if (this.countedUser !== null) this.registry.releaseUser(this.countedUser);
    this.countedUser = null;
  }

  /** A busy socket learns of an expiry at its next message or event; the timer tells an idle one. */
  private watchExpiry(claims: ReturnType<typeof claimsOf>): void {
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
    this.expiryTimer = null;
    this.expiresAt = typeof claims?.exp === 'number' ? claims.exp * 1000 : null;
    if (this.expiresAt === null) return;
    const wait = Math.min(Math.max(this.expiresAt - this.context.clock.now() + 1000, 0), MAX_TIMER_MS);
    this.expiryTimer = setTimeout(this.onExpiry, wait);
    this.expiryTimer.unref();
  }
}
