/**
 * TEMPORARY: the subscription hub's interface (SubscriptionHub in subscription-hub.ts, built beside this on another
 * branch) over the change events and the read engine, so GraphQL subscriptions run before the hub lands. Same
 * semantics as the /websocket session's re-read: each event re-reads the changed keys with the subscriber's
 * accountability; an update of a shown item it may no longer read arrives as a delete, of an item it had not seen
 * as a create; deletes name only keys it has seen. To be replaced by `context.subscriptions` once the hub is merged.
 */
import type { Accountability } from '../permissions/accountability.js';
import type { Key } from '../plan/mutation-plan.js';
import { keyOfValues } from '../plan/row-key.js';
import type { Query } from '../request/query.js';
import type { AppContext } from '../services/app-context.js';
import type { ChangeEvent } from './change-events.js';

export type SubscriptionEventName = 'create' | 'update' | 'delete';

export interface SubscriptionSink {
  event(name: SubscriptionEventName, data: Record<string, unknown>[] | Key[]): void;
}

export interface SubscribeRequest {
  collection: string;
  query: Query;
  accountability: Accountability;
  sink: SubscriptionSink;
}

export interface HubSubscription {
  init: Record<string, unknown>[];
  setAccountability(a: Accountability): void;
  close(): void;
}

export interface SubscriptionHubLike {
  subscribe(request: SubscribeRequest): Promise<HubSubscription>;
}

type Row = Record<string, unknown>;

export class InterimSubscriptionHub implements SubscriptionHubLike {
  constructor(private readonly context: AppContext) {}

  async subscribe(request: SubscribeRequest): Promise<HubSubscription> {
    const { context } = this;
    const { collection, sink } = request;
    let accountability = request.accountability;
    const overview = context.schema.current.collections[collection];
    // The first read checks the collection and the caller's right to read it (its error is the subscribe's).
    const first = await context.items.rowsMany(collection, { ...request.query, meta: undefined }, accountability);
    const init = (Array.isArray(first.data) ? first.data : first.data ? [first.data] : []) as Row[];
    const keyOf = (row: Row) => (overview ? String(keyOfValues(overview, row)) : '');
    const shown = new Set(init.map(keyOf));
    let queue = Promise.resolve();
    let open = true;

    const deliver = async (event: ChangeEvent) => {
      if (!open || event.collection !== collection) return;
      if (event.action === 'delete') {
        const gone = event.keys.filter((key) => shown.delete(String(key)));
        if (gone.length) sink.event('delete', gone);
        return;
      }
      const read = await context.items.rowsKeys(
        collection,
        event.keys,
        { ...request.query, limit: undefined, offset: undefined, page: undefined },
        accountability,
      );
      if (!open) return;
      const rows = (Array.isArray(read.data) ? read.data : read.data ? [read.data] : []) as Row[];
      const readable = new Set(rows.map(keyOf));
      const entering = rows.filter((row) => event.action === 'create' || !shown.has(keyOf(row)));
      const staying = rows.filter((row) => event.action === 'update' && shown.has(keyOf(row)));
      const leaving = event.keys.filter((key) => shown.has(String(key)) && !readable.has(String(key)));
      for (const row of rows) shown.add(keyOf(row));
      for (const key of leaving) shown.delete(String(key));
      if (entering.length) sink.event('create', entering);
      if (staying.length) sink.event('update', staying);
      if (leaving.length) sink.event('delete', leaving);
    };
    const stop = context.changes.listen((event) => {
      queue = queue.then(() => deliver(event)).catch(() => {});
    });
    return {
      init,
      setAccountability: (a) => void (accountability = a),
      close: () => {
        open = false;
        stop();
      },
    };
  }
}
