/**
 * A `<c>_mutated` subscription as the async iterator graphql-js's `subscribe` wants: a hub subscription (whose sink
 * receives the items as this subscriber may read them) turned into one message per changed item, `{key, event,
 * data}`, `data` null on delete (Directus sends one message per key). Messages wait in a bounded queue until the
 * socket takes them; a subscriber that falls further behind is ended with an error rather than holding memory.
 */
import { ServiceError } from '../errors/catalogue.js';
import { keyOfValues } from '../plan/row-key.js';
import type { Query } from '../request/query.js';
import type { HubSubscription } from '../realtime/subscription-hub.js';
import type { GraphQLContext } from './context.js';

export type MutationEventName = 'create' | 'update' | 'delete';

export interface MutationEvent {
  key: string;
  event: MutationEventName;
  data: Record<string, unknown> | null;
}

/** Messages a subscriber may have waiting before it is dropped as too slow. */
export const MAX_PENDING_EVENTS = 1000;

export async function mutationEvents(
  ctx: GraphQLContext,
  collection: string,
  query: Query,
  only: MutationEventName | null,
): Promise<AsyncIterableIterator<MutationEvent>> {
  const queue = new EventQueue();
  const subscription = await ctx.app.subscriptions.subscribe({
    collection,
    query,
    accountability: ctx.accountability,
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
        if (ended) queue.fail(new ServiceError(error.code, 500, error.message));
      },
    },
  });
  queue.attach(subscription);
  return queue;
}

class EventQueue implements AsyncIterableIterator<MutationEvent> {
  private readonly pending: MutationEvent[] = [];
  private waiting: ((result: IteratorResult<MutationEvent>) => void) | null = null;
  private failed: ((error: unknown) => void) | null = null;
  private error: ServiceError | null = null;
  private done = false;
  private subscription: HubSubscription | null = null;

  attach(subscription: HubSubscription): void {
    this.subscription = subscription;
    if (this.done) subscription.close();
  }

  /** Ends the iteration with `error` (after the messages already waiting). */
  fail(error: ServiceError): void {
    if (this.done) return;
    this.error = error;
    if (!this.waiting) return void ((this.done = true), this.subscription?.close());
    this.finish();
  }

  push(event: MutationEvent): void {
    if (this.done) return;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = this.failed = null;
      return resolve({ value: event, done: false });
    }
    if (this.pending.length >= MAX_PENDING_EVENTS) {
      this.error = new ServiceError('REQUESTS_EXCEEDED', 429, 'Too many events are waiting for this subscriber.');
      this.finish();
      return;
    }
    this.pending.push(event);
  }

  next(): Promise<IteratorResult<MutationEvent>> {
    const event = this.pending.shift();
    if (event) return Promise.resolve({ value: event, done: false });
    if (this.error) {
      const error = this.error;
      this.error = null;
      return Promise.reject(error);
    }
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      this.failed = reject;
    });
  }

  return(): Promise<IteratorResult<MutationEvent>> {
    this.finish();
    return Promise.resolve({ value: undefined, done: true });
  }

  throw(error?: unknown): Promise<IteratorResult<MutationEvent>> {
    this.finish();
    return Promise.reject(error);
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<MutationEvent> {
    return this;
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    this.pending.length = 0;
    this.subscription?.close();
    if (this.waiting) {
      const resolve = this.waiting;
      const reject = this.failed!;
      this.waiting = this.failed = null;
      if (this.error) {
        const error = this.error;
        this.error = null;
        reject(error);
      } else resolve({ value: undefined, done: true });
    }
  }
}
