/**
 * The credentials of one GraphQL socket after `connection_init`, kept valid as /websocket keeps its own
 * (docs/design/realtime-fan-out.md): the access token is re-resolved before each operation and, while messages flow, at most once a second before
 * a message (fast-jwt's cache, the user cache and the in-memory login liveness check make that what a REST request
 * costs); its `exp` is compared with the injected clock before every message, and a timer at `exp` tells an idle
 * socket (socket-credential.ts). An expired token, a logout or a revoked session closes the socket with graphql-ws's 4403 Forbidden, which
 * ends its subscriptions (graphql-ws has no re-auth message: the client reconnects with a fresh token). The socket is
 * counted against its user's connection limit (WEBSOCKETS_CONN_LIMIT_PER_USER) while authenticated.
 */
import { ServiceError } from '../errors/catalogue.js';
import type { Accountability } from '../permissions/accountability.js';
import type { AppContext } from '../services/app-context.js';
import { SocketCredential } from './socket-credential.js';
import type { SocketRegistry } from './socket-limits.js';

/** graphql-ws's close code for a refused or withdrawn authorisation. */
export const FORBIDDEN = 4403;

export type ConnectOutcome = 'ok' | 'refused' | 'too-many';

export class GraphQLSocketAuth {
  accountability: Accountability | null = null;
  private readonly credential: SocketCredential;
  private ended = false;

  constructor(
    app: AppContext,
    registry: SocketRegistry,
    ip: string | null,
    private readonly close: (code: number, reason: string) => void,
  ) {
    this.credential = new SocketCredential(app, registry, ip, () => void this.valid(true));
  }

  /** `connection_init`: resolves `token` (null: the Public policy) and counts the socket for its user. */
  async connect(token: string | null): Promise<ConnectOutcome> {
    try {
      this.accountability = token ? await this.credential.use(token) : await this.credential.publicAccess();
      return 'ok';
    } catch (error) {
      return error instanceof ServiceError && error.code === 'REQUESTS_EXCEEDED' ? 'too-many' : 'refused';
    }
  }

  /**
   * Whether the socket's token still stands; when it does not, the socket has just been closed with 4403. `always`:
   * re-resolve now (an operation starts); otherwise only when the last resolve is older than the recheck period.
   */
  async valid(always: boolean): Promise<boolean> {
    if (this.ended) return false;
    if (this.credential.token === null) return true;
    if (this.credential.expired()) return this.forbid('token expired');
    if (!always && !this.credential.stale()) return true;
    try {
      this.accountability = await this.credential.refresh();
      return !this.ended;
    } catch {
      return this.forbid('token no longer valid');
    }
  }

  /** The socket closed: its user's count is released. */
  release(): void {
    this.ended = true;
    this.credential.drop();
  }

  private forbid(why: string): false {
    this.release();
    this.close(FORBIDDEN, `Forbidden: ${why}`);
    return false;
  }
}
