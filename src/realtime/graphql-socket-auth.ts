/**
 * The credentials of one GraphQL socket after `connection_init`, kept valid as /websocket keeps its own (decision
 * 100): the access token is re-resolved before each operation and, while messages flow, at most once a second before
 * a message (fast-jwt's cache, the user cache and the in-memory login liveness check make that what a REST request
 * costs); its `exp` is compared with the injected clock before every message, and a timer at `exp` tells an idle
 * socket. An expired token, a logout or a revoked session closes the socket with graphql-ws's 4403 Forbidden, which
 * ends its subscriptions (graphql-ws has no re-auth message: the client reconnects with a fresh token). The socket is
 * counted against its user's connection limit (WEBSOCKETS_CONN_LIMIT_PER_USER) while authenticated.
 */
import type { Accountability } from '../permissions/accountability.js';
import type { AppContext } from '../services/app-context.js';
import { expiryOf } from './socket-auth.js';
import type { SocketRegistry } from './socket-limits.js';

/** graphql-ws's close code for a refused or withdrawn authorisation. */
export const FORBIDDEN = 4403;
/** While messages flow, the token is re-resolved (logout, revoked session) at most this often. */
const RECHECK_MS = 1000;
const MAX_TIMER_MS = 2 ** 31 - 1;

export type ConnectOutcome = 'ok' | 'refused' | 'too-many';

export class GraphQLSocketAuth {
  accountability: Accountability | null = null;
  private token: string | null = null;
  private expiresAt: number | null = null;
  /** When the token was last resolved, on the clock (as /websocket keeps it: tests move past RECHECK_MS). */
  private checkedAt = 0;
  private countedUser: string | null = null;
  private expiryTimer: NodeJS.Timeout | null = null;
  private ended = false;

  constructor(
    private readonly app: AppContext,
    private readonly registry: SocketRegistry,
    private readonly ip: string | null,
    private readonly close: (code: number, reason: string) => void,
  ) {}

  /** `connection_init`: resolves `token` (null: the Public policy) and counts the socket for its user. */
  async connect(token: string | null): Promise<ConnectOutcome> {
    let accountability: Accountability;
    try {
      accountability = await this.app.accountability.resolve(token, this.ip);
    } catch {
      return 'refused';
    }
    const user = token ? (accountability.user ?? null) : null;
    if (user !== null && !this.registry.claimUser(user)) return 'too-many';
    this.countedUser = user;
    this.accountability = accountability;
    this.token = token;
    this.checkedAt = this.app.clock.now();
    this.expiresAt = token ? expiryOf(token) : null;
    if (this.expiresAt !== null) {
      const wait = Math.min(Math.max(this.expiresAt - this.app.clock.now() + 1000, 0), MAX_TIMER_MS);
      this.expiryTimer = setTimeout(() => void this.valid(true), wait);
      this.expiryTimer.unref();
    }
    return 'ok';
  }

  /**
   * Whether the socket's token still stands; when it does not, the socket has just been closed with 4403. `always`:
   * re-resolve now (an operation starts); otherwise only when the last resolve is older than RECHECK_MS.
   */
  async valid(always: boolean): Promise<boolean> {
    if (this.ended) return false;
    if (this.token === null) return true;
    if (this.expiresAt !== null && this.app.clock.now() >= this.expiresAt) return this.forbid('token expired');
    if (!always && this.app.clock.now() - this.checkedAt <= RECHECK_MS) return true;
    try {
      this.accountability = await this.app.accountability.resolve(this.token, this.ip);
      this.checkedAt = this.app.clock.now();
      return !this.ended;
    } catch {
      return this.forbid('token no longer valid');
    }
  }

  /** The socket closed: its user's count is released. */
  release(): void {
    this.ended = true;
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
    if (this.countedUser !== null) this.registry.releaseUser(this.countedUser);
    this.countedUser = null;
  }

  private forbid(why: string): false {
    this.release();
    this.close(FORBIDDEN, `Forbidden: ${why}`);
    return false;
  }
}
