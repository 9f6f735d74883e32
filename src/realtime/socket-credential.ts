/**
 * The token a socket (/websocket or graphql-ws) authenticated with, kept as valid as a REST request would find it
 * (docs/design/realtime-fan-out.md): its `exp` is compared with the injected clock, it is re-resolved (a logout or a revoked session)
 * when the last resolve is older than RECHECK_MS, and a timer at `exp` wakes an idle socket (`onExpiry`). The socket
 * is counted against its user's connection limit (WEBSOCKETS_CONN_LIMIT_PER_USER) while it holds a user's token.
 * Both protocols decide for themselves what a lost token means (TOKEN_EXPIRED and the Public fallback, or 4403).
 */
import { ServiceError } from '../errors/catalogue.js';
import type { Accountability } from '../permissions/accountability.js';
import type { AppContext } from '../services/app-context.js';
import { expiryOf } from './socket-auth.js';
import type { SocketRegistry } from './socket-limits.js';

/** While messages flow, the token is re-resolved (logout, revoked session) at most this often. */
const RECHECK_MS = 1000;
const MAX_TIMER_MS = 2 ** 31 - 1;

export class SocketCredential {
  /** The access token in use; null: none (the Public policy, or not authenticated yet). */
  token: string | null = null;
  private expiresAt: number | null = null;
  /** When the token was last resolved (on the clock, so tests move past RECHECK_MS instead of sleeping). */
  private checkedAt = 0;
  private countedUser: string | null = null;
  private expiryTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly context: AppContext,
    private readonly registry: SocketRegistry,
    private readonly ip: string | null,
    private readonly onExpiry: () => void,
  ) {}

  /**
   * Resolves `token` and makes it the socket's. Throws what the resolve throws for a token that is not valid, and
   * REQUESTS_EXCEEDED when its user holds as many sockets as allowed; the previous token then stays.
   */
  async use(token: string): Promise<Accountability> {
    const accountability = await this.context.accountability.resolve(token, this.ip);
    const user = accountability.user ?? null;
    if (user !== this.countedUser) {
      if (user !== null && !this.registry.claimUser(user))
        throw new ServiceError('REQUESTS_EXCEEDED', 429, 'This user has as many WebSocket connections as allowed.');
      this.releaseUser();
      this.countedUser = user;
    }
    this.token = token;
    this.checkedAt = this.context.clock.now();
    this.watchExpiry(token);
    return accountability;
  }

  /** The Public policy's accountability (not counted against any user). */
  publicAccess(): Promise<Accountability> {
    return this.context.accountability.resolve(null, this.ip);
  }

  /** The token has passed its `exp` on the clock. */
  expired(): boolean {
    return this.token !== null && this.expiresAt !== null && this.context.clock.now() >= this.expiresAt;
  }

  /** The token must be resolved again before it is trusted: expired, or last resolved more than RECHECK_MS ago. */
  stale(): boolean {
    return this.token !== null && (this.expired() || this.context.clock.now() - this.checkedAt > RECHECK_MS);
  }

  /**
   * Resolves the token again (a permission change is picked up on the way). When it no longer stands, the socket
   * holds no token any more (its user is released, the timer stopped) and the resolve's error is thrown.
   */
  async refresh(): Promise<Accountability> {
    const token = this.token;
    if (token === null) throw new ServiceError('AUTH_FAILED', 401, 'Authentication failed.');
    try {
      const accountability = await this.context.accountability.resolve(token, this.ip);
      this.checkedAt = this.context.clock.now();
      return accountability;
    } catch (error) {
      this.drop();
      throw error;
    }
  }

  /** The socket no longer holds a token: its user's count is released and the expiry timer stopped. */
  drop(): void {
    this.token = null;
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
  private watchExpiry(token: string): void {
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
    this.expiryTimer = null;
    this.expiresAt = expiryOf(token);
    if (this.expiresAt === null) return;
    const wait = Math.min(Math.max(this.expiresAt - this.context.clock.now() + 1000, 0), MAX_TIMER_MS);
    this.expiryTimer = setTimeout(this.onExpiry, wait);
    this.expiryTimer.unref();
  }
}
