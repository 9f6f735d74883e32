/**
 * What one user, and one client address, may hold in the subscription hub of this instance, across all their sockets
 * of both protocols (/websocket and graphql-ws): subscriptions (each costs a member in a group and a socket-side
 * entry) and distinct queries (collection and query text: each costs one re-read per change of its collection,
 * whereas more subscriptions repeating a query share its group's read). A subscription counts for its user (when it
 * has one) and for its address. Per instance, as the connection limits are: a balancer spreads a client's sockets;
 * with several workers the count is their primary's (realtime/socket-counters.ts).
 */
import type { SubscriptionLimits } from '../config/websocket-config.js';
import { ServiceError } from '../errors/catalogue.js';

export type { SubscriptionLimits };

/** One subscription's place in the counts. */
export interface QuotaTicket {
  readonly owners: readonly Owner[];
  readonly query: string;
}

interface Owner {
  key: string;
  kind: 'user' | 'address';
}

interface Counts {
  subscriptions: number;
  /** Subscriptions per query text. */
  queries: Map<string, number>;
}

export class SubscriptionQuota {
  private readonly counts = new Map<string, Counts>();

  constructor(private readonly limits: SubscriptionLimits) {}

  /**
   * Counts a subscription of `user` from `ip` with `query` (its collection and query text), or throws
   * REQUESTS_EXCEEDED. `replacing`: a subscription the new one replaces (a `subscribe` reusing a uid) is not counted.
   */
  take(user: string | null, ip: string | null, query: string, replacing?: QuotaTicket): QuotaTicket {
    const owners: Owner[] = [];
    if (user !== null) owners.push({ key: `u\u0000${user}`, kind: 'user' });
    if (ip !== null) owners.push({ key: `a\u0000${ip}`, kind: 'address' });
    for (const owner of owners) this.check(owner, query, replacing);
    for (const owner of owners) {
      let counts = this.counts.get(owner.key);
      if (!counts) this.counts.set(owner.key, (counts = { subscriptions: 0, queries: new Map() }));
      counts.subscriptions++;
      counts.queries.set(query, (counts.queries.get(query) ?? 0) + 1);
    }
    return { owners, query };
  }

  release(ticket: QuotaTicket): void {
    for (const owner of ticket.owners) {
      const counts = this.counts.get(owner.key);
      if (!counts) continue;
      counts.subscriptions--;
      const left = (counts.queries.get(ticket.query) ?? 0) - 1;
      if (left > 0) counts.queries.set(ticket.query, left);
      else counts.queries.delete(ticket.query);
      if (counts.subscriptions <= 0) this.counts.delete(owner.key);
    }
  }

  private check(owner: Owner, query: string, replacing: QuotaTicket | undefined): void {
    const counts = this.counts.get(owner.key);
    if (!counts) return;
    const replaced = replacing?.owners.some((other) => other.key === owner.key) ? replacing : undefined;
    const who = owner.kind === 'user' ? 'user' : 'client address';
    const max = owner.kind === 'user' ? this.limits.perUser : this.limits.perIp;
    if (max !== null && counts.subscriptions - (replaced ? 1 : 0) >= max)
      throw new ServiceError('REQUESTS_EXCEEDED', 429, `At most ${max} subscriptions per ${who}.`);
    const maxQueries = owner.kind === 'user' ? this.limits.queriesPerUser : this.limits.queriesPerIp;
    if (maxQueries === null || counts.queries.has(query)) return;
    const freed = replaced && counts.queries.get(replaced.query) === 1 ? 1 : 0;
    if (counts.queries.size - freed >= maxQueries)
      throw new ServiceError(
        'REQUESTS_EXCEEDED',
        429,
        `At most ${maxQueries} different subscription queries per ${who} (subscriptions repeating one are not limited by this).`,
      );
  }
}
