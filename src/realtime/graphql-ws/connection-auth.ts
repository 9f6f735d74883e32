/**
 * The credentials of one GraphQL socket after `connection_init`, kept valid as /websocket keeps its own
 * (docs/design/realtime-fan-out.md): the access token is re-resolved before each operation and, while messages flow, at most once a second before
 * a message (fast-jwt's cache, the user cache and the in-memory login liveness check make that what a REST request
 * costs); its `exp` is compared with the injected clock before every message, and a timer at `exp` tells an idle
 * socket (socket-credential.ts). A rights notice (rights-notices.ts) re-resolves it at once. An expired token, a
 * logout or a revoked session closes the socket with graphql-ws's 4403 Forbidden, which ends its subscriptions
 * (graphql-ws has no re-auth message: the client reconnects with a fresh token). Other rights (a new role, a detached
 * policy, a demotion) move its subscriptions to them: the hub ends those the new rights cannot serve (an error, then
 * `complete`), and messages read under the old rights are dropped (`generation`). The socket is counted against its
 * user's connection limit (WEBSOCKETS_CONN_LIMIT_PER_USER) while authenticated.
 */
import { ServiceError } from '../../errors/catalogue.js';
import type { LiveRights } from '../../graphql/context.js';
import type { Accountability } from '../../permissions/accountability.js';
import type { LiveCallerApi } from '../../app/ports.js';
import { sameRights } from '../rights-notices.js';
import { SocketCredential } from '../socket-credential.js';
import type { SocketCounter } from '../socket-counters.js';
import type { HubSubscription } from '../hub/subscription-hub.js';

/** graphql-ws's close code for a refused or withdrawn authorisation. */
export const FORBIDDEN = 4403;

export type ConnectOutcome = 'ok' | 'refused' | 'too-many';

export class GraphQLSocketAuth implements LiveRights {
  accountability: Accountability | null = null;
  /** Moves on whenever the socket's rights change: what was read under older ones is not sent. */
  generation = 0;
  private readonly credential: SocketCredential;
  private readonly subscriptions = new Set<HubSubscription>();
  private ended = false;

  constructor(
    app: LiveCallerApi,
    registry: SocketCounter,
    ip: string | null,
    private readonly close: (code: number, reason: string) => void,
  ) {
    this.credential = new SocketCredential(
      app,
      registry,
      ip,
      () => void this.valid(true),
      () => void this.valid(false),
    );
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
   * Whether the socket's rights still stand; when they do not, the socket has just been closed with 4403. `always`:
   * re-resolve now (an operation starts); otherwise only when a notice came or the last resolve is older than the
   * recheck period.
   */
  async valid(always: boolean): Promise<boolean> {
    if (this.ended) return false;
    if (this.credential.expired()) return this.forbid('token expired');
    if (!always && !this.credential.stale()) return true;
    try {
      let next: Accountability;
      // A notice that arrives during the resolve makes it stale again: resolved once more (a bounded few times).
      for (let tries = 0; ; tries++) {
        next = this.credential.token === null ? await this.credential.publicAccess() : await this.credential.refresh();
        if (!this.credential.stale() || tries === 2) break;
      }
      if (this.ended) return false;
      if (!sameRights(this.accountability, next)) {
        this.generation++;
        for (const subscription of this.subscriptions) subscription.setAccountability(next);
      }
      this.accountability = next;
      return true;
    } catch {
      return this.forbid('token no longer valid');
    }
  }

  /** A subscription of this socket, moved to the socket's rights whenever they change, until the returned call. */
  track(subscription: HubSubscription): () => void {
    this.subscriptions.add(subscription);
    return () => void this.subscriptions.delete(subscription);
  }

  /** The socket closed: its user's count is released. */
  release(): void {
    this.ended = true;
    this.subscriptions.clear();
    this.credential.close();
  }

  private forbid(why: string): false {
    this.release();
    this.close(FORBIDDEN, `Forbidden: ${why}`);
    return false;
  }
}
