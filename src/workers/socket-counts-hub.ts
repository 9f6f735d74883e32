/**
 * The primary's half of the socket counts of WORKERS > 1 (the workers' half: socket-counts.ts): one count of the
 * WebSocket connections of each route, of their users and of the hub's subscriptions for the whole instance, as a
 * single process keeps them (realtime/socket-limits.ts, realtime/subscription-quota.ts). What a worker counted is held
 * under its references, and released when the worker says so or exits (a crashed worker's sockets are gone with it).
 */
import type { Config } from '../config/config.js';
import { ServiceError } from '../errors/catalogue.js';
import { SocketRegistry } from '../realtime/socket-limits.js';
import { SubscriptionQuota, type QuotaTicket } from '../realtime/subscription-quota.js';
import { isSocketCountsRequest, type SocketCountsAnswer, type SocketCountsRequest } from './socket-counts.js';

/** A worker as the counts see it (a cluster Worker is one). */
export interface CountsPeer {
  readonly id: number;
  isConnected(): boolean;
  send(message: SocketCountsAnswer, callback: (error: Error | null) => void): unknown;
}

interface Held {
  release(): void;
  ticket?: QuotaTicket;
}

type Limits = Pick<Config, 'websockets' | 'graphqlSockets'>;

export class SocketCountsHub {
  private readonly registries: Record<'rest' | 'graphql', SocketRegistry>;
  private readonly quota: SubscriptionQuota;
  /** Per worker, what it holds by its reference. */
  private readonly held = new Map<number, Map<number, Held>>();

  constructor(config: Limits) {
    const { limits } = config.websockets;
    this.registries = {
      rest: new SocketRegistry(limits),
      graphql: new SocketRegistry({ ...limits, connections: config.graphqlSockets.connections }),
    };
    this.quota = new SubscriptionQuota(config.websockets.subscriptionLimits);
  }

  /** A message from `from`; false when it is not the counts'. */
  receive(from: CountsPeer, message: unknown): boolean {
    if (!isSocketCountsRequest(message)) return false;
    const held = this.heldBy(from.id);
    const answer = (fields: Omit<SocketCountsAnswer, 'strata' | 'ref'>) => {
      if (from.isConnected())
        from.send({ strata: 'socket-counts-answer', ref: message.ref, ...fields }, (error) => void error);
    };
    switch (message.op) {
      case 'reserve':
        answer(this.reserve(held, message));
        break;
      case 'open':
        held.set(message.ref, { release: this.registries[message.name].open(message.ip) });
        break;
      case 'claim-user':
        answer({ ok: this.claimUser(held, message) });
        break;
      case 'take':
        answer(this.take(held, message));
        break;
      case 'release':
        held.get(message.ref)?.release();
        held.delete(message.ref);
        break;
    }
    return true;
  }

  /** A worker exited: everything it counted is released. */
  gone(worker: { id: number }): void {
    for (const entry of this.held.get(worker.id)?.values() ?? []) entry.release();
    this.held.delete(worker.id);
  }

  private heldBy(worker: number): Map<number, Held> {
    let held = this.held.get(worker);
    if (!held) this.held.set(worker, (held = new Map()));
    return held;
  }

  /** Checks and counts a connection in one step (the socket that opens takes the place). */
  private reserve(
    held: Map<number, Held>,
    message: Extract<SocketCountsRequest, { op: 'reserve' }>,
  ): Omit<SocketCountsAnswer, 'strata' | 'ref'> {
    const registry = this.registries[message.name];
    const refusal = registry.refusal(message.ip);
    if (!refusal) held.set(message.ref, { release: registry.open(message.ip) });
    return { ok: refusal === null, refusal };
  }

  private claimUser(held: Map<number, Held>, message: Extract<SocketCountsRequest, { op: 'claim-user' }>): boolean {
    const registry = this.registries[message.name];
    if (!registry.claimUser(message.user)) return false;
    held.set(message.ref, { release: () => registry.releaseUser(message.user) });
    return true;
  }

  private take(
    held: Map<number, Held>,
    message: Extract<SocketCountsRequest, { op: 'take' }>,
  ): Omit<SocketCountsAnswer, 'strata' | 'ref'> {
    const replacing = message.replacing === null ? undefined : held.get(message.replacing)?.ticket;
    try {
      const ticket = this.quota.take(message.user, message.ip, message.query, replacing);
      held.set(message.ref, { ticket, release: () => this.quota.release(ticket) });
      return { ok: true };
    } catch (error) {
      if (error instanceof ServiceError) return { ok: false, message: error.message };
      throw error;
    }
  }
}
