/**
 * A worker's half of the socket counts of WORKERS > 1 (the primary's: socket-counts-hub.ts). The per-instance
 * WebSocket limits (connections per address, per user and in all; subscriptions and distinct queries per user and per
 * address) are counted in the primary, so that they hold for all the workers of an instance together. Each thing
 * counted has a reference of this worker's; releasing it is one message, and the primary releases every reference of
 * a worker that exits. A count the primary does not answer within ANSWER_TIMEOUT_MS is a refusal with a coded error
 * (503 at an upgrade, SERVICE_UNAVAILABLE on the socket), never a hang; what it may still count is released.
 */
import { ServiceError } from '../errors/catalogue.js';
import type { SocketRefusal } from '../realtime/socket-limits.js';
import type { QuotaTicket } from '../realtime/subscription-quota.js';

/** As long as a rate-limit count may take (bus/rate-limiters.ts). */
export const ANSWER_TIMEOUT_MS = 5_000;
/** A place reserved at an upgrade's check that no socket took by then (the upgrade failed) is released. */
const RESERVATION_MS = 10_000;

/** The connection counts of one route: `rest` (/websocket) or `graphql` (graphql-ws); each has its own total. */
export type SocketCountsName = 'rest' | 'graphql';

export type SocketCountsRequest =
  | { strata: 'socket-counts'; op: 'reserve'; ref: number; name: SocketCountsName; ip: string | null }
  | { strata: 'socket-counts'; op: 'open'; ref: number; name: SocketCountsName; ip: string | null }
  | { strata: 'socket-counts'; op: 'claim-user'; ref: number; name: SocketCountsName; user: string }
  | {
      strata: 'socket-counts';
      op: 'take';
      ref: number;
      user: string | null;
      ip: string | null;
      query: string;
      replacing: number | null;
    }
  | { strata: 'socket-counts'; op: 'release'; ref: number };

export interface SocketCountsAnswer {
  strata: 'socket-counts-answer';
  ref: number;
  ok: boolean;
  refusal?: SocketRefusal | null;
  /** Why a subscription was refused (the quota's REQUESTS_EXCEEDED message). */
  message?: string;
}

export const isSocketCountsRequest = (message: unknown): message is SocketCountsRequest =>
  (message as { strata?: unknown } | null)?.strata === 'socket-counts';
const isAnswer = (message: unknown): message is SocketCountsAnswer =>
  (message as { strata?: unknown } | null)?.strata === 'socket-counts-answer';

type Ask = Exclude<SocketCountsRequest, { op: 'release' | 'open' }>;
type Unref<T> = T extends unknown ? Omit<T, 'ref' | 'strata'> : never;

/** The one channel of this worker to its primary's counts (one message listener for every counter). */
class PrimaryCounts {
  private next = 1;
  private readonly waiting = new Map<number, (answer: SocketCountsAnswer | null) => void>();

  constructor() {
    process.on('message', (message: unknown) => {
      if (!isAnswer(message)) return;
      const done = this.waiting.get(message.ref);
      this.waiting.delete(message.ref);
      done?.(message);
    });
  }

  ref(): number {
    return this.next++;
  }

  /** The primary's answer to `request`, or null when it gave none in time (or the channel is gone). */
  ask(request: Unref<Ask>, ref = this.ref()): Promise<SocketCountsAnswer | null> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(ref);
        resolve(null);
      }, ANSWER_TIMEOUT_MS);
      this.waiting.set(ref, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      if (!this.tell({ ...request, ref } as SocketCountsRequest)) {
        clearTimeout(timer);
        this.waiting.delete(ref);
        resolve(null);
      }
    });
  }

  /** Sends without waiting (IPC keeps one worker's messages in order); false when the channel is gone. */
  tell(message: Unref<SocketCountsRequest> & { ref: number }): boolean {
    if (!process.send || !process.connected) return false;
    process.send({ strata: 'socket-counts', ...message }, (error: Error | null) => void error);
    return true;
  }
}

let primary: PrimaryCounts | null = null;
const counts = () => (primary ??= new PrimaryCounts());

const NO_ANSWER: SocketRefusal = {
  status: 503,
  reason: 'The connection counts of this instance did not answer in time; try again.',
};

function noAnswer(): ServiceError {
  return new ServiceError('SERVICE_UNAVAILABLE', 503, NO_ANSWER.reason);
}

/**
 * A route's connection counts, kept in the primary (the shape of realtime/socket-limits.ts's SocketRegistry). The
 * check at the upgrade counts the connection at once (checked and counted in one step in the primary: an upgrade on
 * the other worker a moment later sees it); the socket that opens then takes that place.
 */
export function clusterSocketCounter(name: SocketCountsName) {
  /** Per user, the references of this worker's claims still counted. */
  const claims = new Map<string, number[]>();
  /** Per client address, places reserved at a check and not yet taken by a socket, oldest first. */
  const reserved = new Map<string, { ref: number; timer: NodeJS.Timeout }[]>();
  const unreserve = (ip: string | null, ref: number) => {
    const left = (reserved.get(ip ?? '') ?? []).filter((entry) => entry.ref !== ref);
    if (left.length) reserved.set(ip ?? '', left);
    else reserved.delete(ip ?? '');
  };
  return {
    async refusal(ip: string | null): Promise<SocketRefusal | null> {
      const ref = counts().ref();
      const answer = await counts().ask({ op: 'reserve', name, ip }, ref);
      if (!answer) {
        counts().tell({ op: 'release', ref });
        return NO_ANSWER;
      }
      if (answer.refusal) return answer.refusal;
      const timer = setTimeout(() => {
        unreserve(ip, ref);
        counts().tell({ op: 'release', ref });
      }, RESERVATION_MS).unref();
      reserved.set(ip ?? '', [...(reserved.get(ip ?? '') ?? []), { ref, timer }]);
      return null;
    },
    open(ip: string | null): () => void {
      const place = reserved.get(ip ?? '')?.[0];
      let ref: number;
      if (place) {
        clearTimeout(place.timer);
        unreserve(ip, place.ref);
        ref = place.ref;
      } else {
        ref = counts().ref();
        counts().tell({ op: 'open', ref, name, ip });
      }
      let released = false;
      return () => {
        if (!released) counts().tell({ op: 'release', ref });
        released = true;
      };
    },
    async claimUser(user: string): Promise<boolean> {
      const ref = counts().ref();
      const answer = await counts().ask({ op: 'claim-user', name, user }, ref);
      if (!answer) {
        // It may still be counted when the primary gets to it: released after it.
        counts().tell({ op: 'release', ref });
        throw noAnswer();
      }
      if (answer.ok) claims.set(user, [...(claims.get(user) ?? []), ref]);
      return answer.ok;
    },
    releaseUser(user: string): void {
      const refs = claims.get(user);
      const ref = refs?.pop();
      if (!refs?.length) claims.delete(user);
      if (ref !== undefined) counts().tell({ op: 'release', ref });
    },
  };
}

interface ClusterTicket extends QuotaTicket {
  readonly ref: number;
}

/** The subscription hub's counts, kept in the primary (the shape of realtime/subscription-quota.ts's). */
export function clusterQuotaCounter() {
  return {
    async take(user: string | null, ip: string | null, query: string, replacing?: QuotaTicket): Promise<QuotaTicket> {
      const ref = counts().ref();
      const replaced = (replacing as ClusterTicket | undefined)?.ref ?? null;
      const answer = await counts().ask({ op: 'take', user, ip, query, replacing: replaced }, ref);
      if (!answer) {
        counts().tell({ op: 'release', ref });
        throw noAnswer();
      }
      if (!answer.ok) throw new ServiceError('REQUESTS_EXCEEDED', 429, answer.message ?? 'Too many subscriptions.');
      const ticket: ClusterTicket = { owners: [], query, ref };
      return ticket;
    },
    release(ticket: QuotaTicket): void {
      counts().tell({ op: 'release', ref: (ticket as ClusterTicket).ref });
    },
  };
}
