/**
 * Where a process counts its sockets, their users and their subscriptions against the per-instance limits: in its own
 * memory (socket-limits.ts, subscription-quota.ts) when it is the whole instance, or in the primary of several workers
 * (WORKERS > 1, workers/socket-counts.ts), so that a limit holds for all the workers of an instance together. The
 * answers may come later (over IPC): callers await them; the in-process counts answer at once.
 */
import type { SubscriptionLimits, WebSocketLimits } from '../config/websocket-config.js';
import { isClusterWorker } from '../workers/worker-side.js';
import { clusterQuotaCounter, clusterSocketCounter, type SocketCountsName } from '../workers/socket-counts.js';
import { SocketRegistry, type SocketRefusal } from './socket-limits.js';
import { SubscriptionQuota, type QuotaTicket } from './subscription-quota.js';

export interface SocketCounter {
  /** Why a new connection from `ip` is refused (and the HTTP status), or null when it may open. */
  refusal(ip: string | null): SocketRefusal | null | Promise<SocketRefusal | null>;
  /** Counts an open connection; the function releases it. */
  open(ip: string | null): () => void;
  /** Counts a socket for `user`; false (nothing counted) when the user has as many as allowed. */
  claimUser(user: string): boolean | Promise<boolean>;
  releaseUser(user: string): void;
}

export interface QuotaCounter {
  /** Counts a subscription, or throws REQUESTS_EXCEEDED (SubscriptionQuota.take). */
  take(
    user: string | null,
    ip: string | null,
    query: string,
    replacing?: QuotaTicket,
  ): QuotaTicket | Promise<QuotaTicket>;
  release(ticket: QuotaTicket): void;
}

/** The connection counts of one socket route (`rest`: /websocket, `graphql`: graphql-ws), for this process. */
export function socketCounter(name: SocketCountsName, limits: WebSocketLimits, workers: number): SocketCounter {
  return isClusterWorker(workers) ? clusterSocketCounter(name) : new SocketRegistry(limits);
}

/** The subscription counts of the hub, for this process. */
export function quotaCounter(limits: SubscriptionLimits, workers: number): QuotaCounter {
  return isClusterWorker(workers) ? clusterQuotaCounter() : new SubscriptionQuota(limits);
}
