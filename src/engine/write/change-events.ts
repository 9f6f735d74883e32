/**
 * Change events: which items of which collection a committed write created, updated or deleted (keys and action
 * only; a subscriber re-reads the items with its own accountability, so no data crosses the bus). The write executor
 * records into a ChangeRecorder during the transaction; the writer hands the recorder to `ChangeEvents.emit` once the
 * transaction has committed, so a rolled-back write emits nothing. Listeners of this instance hear an event
 * synchronously at emit, so events of one collection keep their commit order; with Redis the event is also published
 * for the other instances (whose listeners hear it in the order Redis delivers it: one connection, in order). Without
 * Redis the database bus carries only change counters, not payloads: events stay on this instance.
 */
import type { MessageBus, Notice } from '../../bus/message-bus.js';
import type { Key } from '../../plan/mutation-plan.js';

export type ChangeAction = 'create' | 'update' | 'delete';

export interface ChangeEvent {
  collection: string;
  action: ChangeAction;
  keys: Key[];
  /**
   * The write changed these items each on its own (an update of an array of items): Directus announces each apart,
   * one message per item on /websocket, where it announces an update of keys with one data as one message.
   */
  apart?: boolean;
}

export type ChangeListener = (event: ChangeEvent) => void;

export const CHANGES_CHANNEL = 'changes';

/** The changes one transaction makes, in the order its statements made them; merged per collection and action. */
export class ChangeRecorder {
  /** Each event with the keys it holds as text, kept with it: a batch records its rows one call each. */
  private readonly byTarget = new Map<string, { event: ChangeEvent; seen: Set<string> }>();
  /** The values each created or updated item was written with (only when asked: the outbox's event payloads). */
  private readonly values = new Map<string, Record<string, unknown>>();

  /** `keepValues`: hold each item's written values (`valuesOf`) for the flows' outbox. */
  constructor(readonly keepValues = false) {}

  record(collection: string, action: ChangeAction, keys: readonly Key[], values?: Record<string, unknown>): void {
    if (keys.length === 0) return;
    if (this.keepValues && values && keys.length === 1)
      this.values.set(`${action}\u0000${collection}\u0000${String(keys[0])}`, values);
    const target = `${action}\u0000${collection}`;
    let entry = this.byTarget.get(target);
    if (!entry) this.byTarget.set(target, (entry = { event: { collection, action, keys: [] }, seen: new Set() }));
    for (const key of keys) {
      const text = String(key);
      if (!entry.seen.has(text)) (entry.event.keys.push(key), entry.seen.add(text));
    }
  }

  /** The values an item was written with (recorded with `keepValues`), or undefined. */
  valuesOf(collection: string, action: ChangeAction, key: Key): Record<string, unknown> | undefined {
    return this.values.get(`${action}\u0000${collection}\u0000${String(key)}`);
  }

  /** The items of this collection and action were each written on its own (see ChangeEvent.apart). */
  markApart(collection: string, action: ChangeAction): void {
    const entry = this.byTarget.get(`${action}\u0000${collection}`);
    if (entry) entry.event.apart = true;
  }

  /** Creates of a collection come before its updates, and deletes last, as a reader of the events expects them. */
  events(): ChangeEvent[] {
    const order: Record<ChangeAction, number> = { create: 0, update: 1, delete: 2 };
    return [...this.byTarget.values()].map((e) => e.event).sort((a, b) => order[a.action] - order[b.action]);
  }
}

function isChangeEvent(notice: Notice): notice is Notice & ChangeEvent {
  return (
    typeof notice.collection === 'string' &&
    ['create', 'update', 'delete'].includes(notice.action as string) &&
    Array.isArray(notice.keys)
  );
}

export class ChangeEvents {
  private readonly listeners = new Set<ChangeListener>();
  private readonly guards: ((collections: string[]) => Promise<void>)[] = [];
  private remote: MessageBus | null = null;

  /** `remote`: the bus to other instances, or null when it cannot carry payloads (no Redis). */
  async start(remote: MessageBus | null): Promise<void> {
    this.remote = remote;
    await remote?.subscribe(CHANGES_CHANNEL, (notice) => {
      if (isChangeEvent(notice))
        this.deliver({
          collection: notice.collection,
          action: notice.action,
          keys: notice.keys,
          ...(notice.apart === true ? { apart: true } : {}),
        });
    });
  }

  listen(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /**
   * Runs `guard` with the collections of every committed write, and the write is acknowledged only once it is done
   * (the response cache drops what the write made stale; a guard never throws).
   */
  beforeAcknowledge(guard: (collections: string[]) => Promise<void>): void {
    this.guards.push(guard);
  }

  /**
   * After commit: this instance's listeners now, the other instances' through the bus (never fails the write); the
   * promise is the guards being done, awaited before the write's response.
   */
  async emit(recorder: ChangeRecorder): Promise<void> {
    const events = recorder.events();
    for (const event of events) {
      this.deliver(event);
      void this.remote?.publish(CHANGES_CHANNEL, { ...event });
    }
    if (this.guards.length === 0 || events.length === 0) return;
    const collections = [...new Set(events.map((event) => event.collection))];
    await Promise.all(this.guards.map((guard) => guard(collections)));
  }

  /** After a write that is its own transaction (one statement outside the item writer, already committed). */
  announce(collection: string, action: ChangeAction, keys: readonly Key[]): Promise<void> {
    const recorder = new ChangeRecorder();
    recorder.record(collection, action, keys);
    return this.emit(recorder);
  }

  private deliver(event: ChangeEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A listener's failure is its own (a socket gone); the write and the other listeners are unaffected.
      }
    }
  }
}
