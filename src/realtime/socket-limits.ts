/**
 * Counts of open /websocket connections on this instance, per client IP and per authenticated user, against the
 * WEBSOCKETS_* limits. The total and the per-IP count are known at the upgrade (refused there with 503 / 429, before a
 * socket exists); the user only once the socket authenticates (its `auth` is then refused and the socket closed).
 * Per instance on purpose: a balancer spreads one client's sockets, and a shared counter would need a round trip per
 * connect and a cleanup after a crash. With several workers (WORKERS > 1) one of these lives in their primary
 * (workers/socket-counts-hub.ts) and the workers ask it (socket-counters.ts): the instance is all its workers.
 */
import type { WebSocketLimits } from '../config/websocket-config.js';

export interface SocketRefusal {
  status: number;
  reason: string;
}

export class SocketRegistry {
  private total = 0;
  private readonly perIp = new Map<string, number>();
  private readonly perUser = new Map<string, number>();

  constructor(private readonly limits: WebSocketLimits) {}

  /** Why a new connection from `ip` is refused (and the HTTP status), or null when it may open. */
  refusal(ip: string | null): SocketRefusal | null {
    const { connections, connectionsPerIp } = this.limits;
    if (connections !== null && this.total >= connections)
      return { status: 503, reason: 'The server has as many WebSocket connections as it accepts.' };
    if (connectionsPerIp !== null && (this.perIp.get(ip ?? '') ?? 0) >= connectionsPerIp)
      return { status: 429, reason: `At most ${connectionsPerIp} WebSocket connections per client address.` };
    return null;
  }

  open(ip: string | null): () => void {
    this.total++;
    bump(this.perIp, ip ?? '', 1);
    return () => {
      this.total--;
      bump(this.perIp, ip ?? '', -1);
    };
  }

  /** Counts a socket for `user`; false (nothing counted) when the user has as many as allowed. */
  claimUser(user: string): boolean {
    const max = this.limits.connectionsPerUser;
    if (max !== null && (this.perUser.get(user) ?? 0) >= max) return false;
    bump(this.perUser, user, 1);
    return true;
  }

  releaseUser(user: string): void {
    bump(this.perUser, user, -1);
  }
}

function bump(map: Map<string, number>, key: string, by: number): void {
  const next = (map.get(key) ?? 0) + by;
  if (next <= 0) map.delete(key);
  else map.set(key, next);
}
