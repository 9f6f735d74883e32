/**
 * A `<c>_mutated` subscription as the async iterator graphql-js's `subscribe` wants: a hub subscription (whose sink
 * receives the items as this subscriber may read them) turned into one message per changed item, `{key, event,
 * data}`, `data` null on delete (Directus sends one message per key). Messages wait in a bounded queue until the
 * socket takes them; a subscriber that falls further behind is ended with an error rather than holding memory.
 * An ending (too slow, or the hub ended the subscription: collection gone, read access revoked) is the last item
 * of the iteration: its resolver throws the error, so the client gets a `next` message whose error carries the
 * catalogue code, then `complete`. Over the GraphQL socket the subscription follows the socket's rights (`ctx.live`):
 * before a message is handed on, the rights are re-resolved if a notice made them stale, and a message read under
 * rights the socket no longer has is dropped.
 */
import { ServiceError } from '../errors/catalogue.js';
import { keyOfValues } from '../plan/row-key.js';
import type { Query } from '../request/query.js';
import type { HubSubscription } from '../realtime/hub/subscription-hub.js';
import type { GraphQLContext, LiveRights } from './context.js';

export type MutationEventName = 'create' | 'update' | 'delete';

export interface MutationEvent {
  key: string;
  event: MutationEventName;
  data: Record<string, unknown> | null;
}

/** The last item of an ended subscription: the `<c>_mutated` resolver throws its error. */
export class SubscriptionEnded {
  constructor(readonly error: ServiceError) {}
}

export type MutationItem = MutationEvent | SubscriptionEnded;

/** Messages a subscriber may have waiting before it is dropped as too slow. */
export const MAX_PENDING_EVENTS = 1000;

export async function mutationEvents(
  ctx: GraphQLContext,
  collection: string,
  query: Query,
  only: MutationEventName | null,
): Promise<AsyncIterableIterator<MutationItem>> {
  const queue = new EventQueue(ctx.live ?? null);
  const generation = ctx.live?.generation;
  const subscription = await ctx.app.subscriptions.subscribe({
    collection,
    query,
    accountability: ctx.accountability,
    ip: ctx.client.ip,
    sink: {
      event(name, data) {
        if (only !== null && name !== only) return;
        const overview = ctx.app.schema.current.collections[collection];
        for (const item of data) {
          if (name === 'delete') queue.push({ key: String(item as string | number), event: name, data: null });
          else {
            const row = item as Record<string, unknown>;
            const key = overview ? keyOfValues(overview, row) : undefined;
            if (key !== null && key !== undefined) queue.push({ key: String(key), event: name, data: row });
          }
        }
      },
      // Ended (the collection is gone, or the subscriber may no longer read it): the operation ends with the error.
      // Otherwise one event was lost (the hub logged why) and the next may arrive: the subscription goes on.
      error(error, ended) {
        if (ended) queue.end(new ServiceError(error.code, 500, error.message));
      },
    },
    queued: ctx.subscribed,
  });
  queue.attach(subscription);
  // The socket's rights changed during the first read: the subscription follows them (the hub checks them).
  const now = ctx.live?.accountability;
  if (now && ctx.live!.generation !== generation) subscription.setAccountability(now);
  return queue;
}

/** An item and the generation of the socket's rights it was read under (-1: not a read, always handed on). */
interface Pending {
  item: MutationItem;
  generation: number;
}

class EventQueue implements AsyncIterableIterator<MutationItem> {
  private readonly pending: Pending[] = [];
  private waiting: ((result: IteratorResult<Pending>) => void) | null = null;
  private done = false;
  private subscription: HubSubscription | null = null;
  private untrack: () => void = () => {};

  constructor(private readonly live: LiveRights | null) {}

  attach(subscription: HubSubscription): void {
    this.subscription = subscription;
    if (this.live) this.untrack = this.live.track(subscription);
    if (this.done) this.close();
  }

  push(event: MutationEvent): void {
    if (this.done) return;
    if (this.pending.length >= MAX_PENDING_EVENTS) {
      // What waits is dropped: the subscriber learns it fell behind, not a partial history.
      this.pending.length = 0;
      return this.end(new ServiceError('REQUESTS_EXCEEDED', 429, 'Too many events are waiting for this subscriber.'));
    }
    this.pending.push({ item: event, generation: this.live?.generation ?? 0 });
    this.hand();
  }

  /** No more events; `error`: the last item, after those already waiting. */
  end(error?: ServiceError): void {
    if (this.done) return;
    this.done = true;
    if (error) this.pending.push({ item: new SubscriptionEnded(error), generation: -1 });
    this.close();
    this.hand();
  }

  async next(): Promise<IteratorResult<MutationItem>> {
    for (;;) {
      const taken = await this.take();
      if (taken.done) return { value: undefined, done: true };
      const { item, generation } = taken.value;
      if (!this.live || generation === -1) return { value: item, done: false };
      // A notice may have come since the item was read: the rights are resolved first (false: the socket closes).
      if (!(await this.live.valid(false))) return this.return();
      if (generation === this.live.generation) return { value: item, done: false };
    }
  }

  /** The client completed the operation (or the socket closed). */
  return(): Promise<IteratorResult<MutationItem>> {
    this.pending.length = 0;
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  throw(error?: unknown): Promise<IteratorResult<MutationItem>> {
    this.pending.length = 0;
    this.end();
    return Promise.reject(error);
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<MutationItem> {
    return this;
  }

  private take(): Promise<IteratorResult<Pending>> {
    const pending = this.pending.shift();
    if (pending) return Promise.resolve({ value: pending, done: false });
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.waiting = resolve));
  }

  private close(): void {
    this.untrack();
    this.subscription?.close();
  }

  /** Gives the next item (or the end) to a `next()` that is waiting. */
  private hand(): void {
    if (!this.waiting) return;
    const item = this.pending.shift();
    if (!item && !this.done) return;
    const resolve = this.waiting;
    this.waiting = null;
    resolve(item ? { value: item, done: false } : { value: undefined, done: true });
  }
}
