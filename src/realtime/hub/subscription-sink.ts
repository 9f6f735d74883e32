/**
 * The hub's view of one subscriber (a /websocket subscription, a graphql-ws operation): where its events go.
 * The front end turns them into its protocol's messages.
 */
import type { Accountability } from '../../permissions/accountability.js';
import type { Key } from '../../plan/mutation-plan.js';
import type { Query } from '../../request/query.js';

export type SubscriptionEventName = 'create' | 'update' | 'delete';

export interface SubscriptionError {
  code: string;
  message: string;
}

/** Events reach a sink only once `subscribe` has resolved and the code right after its `await` has run. */
export interface SubscriptionSink {
  /**
   * create/update: rows as this subscriber may read them (its fields, its item rules); delete: the keys.
   * `json` is `data` already serialised and `items` each of its items (shared by every subscriber of the group:
   * splice them, don't re-encode). `apart`: the items were each written on its own (an update of an array of items),
   * which Directus announces one message per item.
   */
  event(
    name: SubscriptionEventName,
    data: Record<string, unknown>[] | Key[],
    json: string,
    items: readonly string[],
    apart: boolean,
  ): void;
  /**
   * The subscription could not be served. `ended`: it never will be again (collection gone, read access revoked)
   * and the hub has closed it; otherwise this event was lost (e.g. the database failed) and the next may arrive.
   */
  error?(error: SubscriptionError, ended: boolean): void;
}

export interface SubscribeRequest {
  collection: string;
  /** Parsed (request/parse-query.ts); fields may omit the key: the hub adds and strips it. */
  query: Query;
  accountability: Accountability;
  /** The client's address: its subscriptions are counted against the per-address limits (subscription-quota.ts). */
  ip?: string | null;
  /** A subscription this one replaces (a `subscribe` reusing a uid): not counted against the limits meanwhile. */
  replaces?: HubSubscription;
  sink: SubscriptionSink;
  /**
   * Called once the subscription is queued (or refused): events from then on reach it. The front end's hold on
   * events (event-hold.ts) ends here.
   */
  queued?: () => void;
}

export interface HubSubscription {
  /** The first read (the query's limit applies), as the subscriber may read it. */
  init: Record<string, unknown>[];
  /**
   * The socket's rights changed (a re-auth, a new role, a detached policy…): the next event is read with these, and
   * if they cannot read what the subscription asked for, it ends with the error (`sink.error`, ended).
   */
  setAccountability(accountability: Accountability): void;
  close(): void;
}
