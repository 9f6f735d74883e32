/**
 * The fan-out engine behind every realtime front end (/websocket, graphql-ws). One ChangeEvents listener per
 * instance; subscriptions are grouped by what makes their reads identical (group-key.ts), and per event each group
 * of the collection re-reads the changed items once, with its members' accountability, and sends the rows (serialised
 * once) to every member. Events carry keys only (change-events.ts), so fields and item rules apply per group, and a
 * permission change applies to the next event: before each event the groups whose permission set was replaced are
 * regrouped (their rules may now name the caller, or no longer).
 *
 * Order: the work of one collection (first reads of new subscriptions, events, regrouping after a re-auth) runs one
 * piece at a time in arrival order, so a subscriber gets the events of a collection in commit order, never before its
 * `init`, and none committed after its first read is missed. Groups of one event are read in parallel. Events that
 * queue up behind a re-read merge with the last waiting one of the same action (docs/design/realtime-fan-out.md).
 */
import { ServiceError, ForbiddenError } from '../errors/catalogue.js';
import type { Accountability } from '../permissions/accountability.js';
import type { AccessResolver } from '../permissions/access-resolver.js';
import type { PermissionSet } from '../permissions/permission-store.js';
import type { Key } from '../plan/mutation-plan.js';
import { keyOfValues } from '../plan/row-key.js';
import type { Query } from '../request/query.js';
import { ITEM_SYSTEM_COLLECTIONS } from '../schema/system-meta.js';
import type { SchemaOverview } from '../schema/types.js';
import type { ItemsService } from '../services/items-service.js';
import type { ChangeEvent, ChangeEvents } from './change-events.js';
import { canonicalJson, GroupKeys } from './group-key.js';
import { SubscriptionGroup, type Member } from './subscription-group.js';
import type {
  HubSubscription,
  SubscribeRequest,
  SubscriptionError,
  SubscriptionEventName,
} from './subscription-sink.js';

export type {
  HubSubscription,
  SubscribeRequest,
  SubscriptionError,
  SubscriptionEventName,
  SubscriptionSink,
} from './subscription-sink.js';

export interface HubLog {
  warn(msg: string): void;
  error?(object: unknown, msg: string): void;
}

export interface HubDeps {
  items: ItemsService;
  schema: () => SchemaOverview;
  access: AccessResolver;
  changes: ChangeEvents;
  /** Keys a group remembers having shown (subscription-group.ts). */
  shownMax: number;
  log: HubLog;
}

type Row = Record<string, unknown>;

const UNEXPECTED: SubscriptionError = { code: 'INTERNAL_SERVER_ERROR', message: 'An unexpected error occurred.' };

/** The service_* collections with items semantics are subscribable like /users reads them (their rules apply). */
function readOptions(collection: string): { system?: boolean } {
  return ITEM_SYSTEM_COLLECTIONS.has(collection) ? { system: true } : {};
}

function asRows(data: unknown): Row[] {
  return (Array.isArray(data) ? data : data ? [data] : []) as Row[];
}

export class SubscriptionHub {
  private readonly keys = new GroupKeys();
  private readonly groups = new Map<string, SubscriptionGroup>();
  private readonly byCollection = new Map<string, Set<SubscriptionGroup>>();
  /** Per collection, the tail of its work in progress (absent when idle). */
  private readonly queues = new Map<string, Promise<void>>();
  /** Per collection, the last queued event when nothing was queued after it and it has not started. */
  private readonly waiting = new Map<string, ChangeEvent>();
  private readonly stopListening: () => void;

  constructor(private readonly deps: HubDeps) {
    this.stopListening = deps.changes.listen((event) => this.queueEvent(event));
  }

  /** Throws ServiceError (FORBIDDEN, INVALID_QUERY, …) when the caller may not read what it asks for. */
  async subscribe(request: SubscribeRequest): Promise<HubSubscription> {
    const { collection, accountability, sink } = request;
    const overview = this.deps.schema().collections[collection];
    const fields = request.query.fields;
    const addedKeys =
      overview && fields && !fields.includes('*') ? overview.keyFields.filter((name) => !fields.includes(name)) : [];
    const query: Query = { ...request.query, meta: undefined };
    if (addedKeys.length) query.fields = [...fields!, ...addedKeys];
    return this.serialise(
      collection,
      async () => {
        // The first read checks the collection and the caller's right to read it (its error answers the subscribe).
        const { data } = await this.deps.items.rowsMany(
          collection,
          query,
          accountability,
          undefined,
          readOptions(collection),
        );
        const rows = asRows(data);
        const permissions = await this.deps.access.permissionsOf(accountability);
        const group = this.groupFor(collection, query, addedKeys, accountability, permissions);
        const member: Member = { sink, accountability, group, closed: false };
        group.members.add(member);
        const current = this.deps.schema().collections[collection];
        for (const row of rows) {
          const key = current ? keyOfValues(current, row) : null;
          if (key !== null && key !== undefined) group.show(String(key));
        }
        return {
          init: group.visible(rows),
          setAccountability: (next: Accountability) => this.reauthenticate(member, next),
          close: () => this.leave(member),
        };
      },
      true,
    );
  }

  /** Subscriptions alive, and the groups serving them (tests and the bench read these). */
  stats(): { subscriptions: number; groups: number; shownKeys: number } {
    let subscriptions = 0;
    let shownKeys = 0;
    for (const group of this.groups.values()) {
      subscriptions += group.members.size;
      shownKeys += group.shownCount();
    }
    return { subscriptions, groups: this.groups.size, shownKeys };
  }

  close(): void {
    this.stopListening();
    for (const group of this.groups.values()) for (const member of group.members) member.closed = true;
    this.groups.clear();
    this.byCollection.clear();
  }

  /**
   * Queues an event for its collection's subscribers. While events wait behind a re-read, a new one of the same
   * action joins the last waiting one (its keys added): one re-read and one message per subscriber for all of
   * them, so a backlog shrinks instead of growing, and the order of actions is kept.
   */
  private queueEvent(event: ChangeEvent): void {
    const { collection } = event;
    // A subscription whose first read is queued counts too: the event may postdate that read.
    if (!this.byCollection.has(collection) && !this.queues.has(collection)) return;
    const last = this.waiting.get(collection);
    if (last && last.action === event.action) {
      const known = new Set(last.keys.map(String));
      for (const key of event.keys) if (!known.has(String(key))) last.keys.push(key);
      return;
    }
    const queued: ChangeEvent = { ...event, keys: [...event.keys] };
    void this.serialise(collection, () => {
      if (this.waiting.get(collection) === queued) this.waiting.delete(collection);
      return this.onChange(queued);
    });
    this.waiting.set(collection, queued);
  }

  /**
   * Runs `work` after the collection's earlier work. `handOver`: the next work waits for a macrotask turn, so the
   * caller's continuation (sending `init`) runs before any event of the new subscription reaches its sink.
   */
  private serialise<T>(collection: string, work: () => Promise<T>, handOver = false): Promise<T> {
    // Work queued after a waiting event ends its merging (events after the work must not join one before it).
    this.waiting.delete(collection);
    const previous = this.queues.get(collection) ?? Promise.resolve();
    const run = previous.then(work);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    const tail = handOver ? settled.then(() => new Promise<void>((resolve) => setImmediate(resolve))) : settled;
    this.queues.set(collection, tail);
    void tail.then(() => {
      if (this.queues.get(collection) === tail) this.queues.delete(collection);
    });
    return run;
  }

  private groupFor(
    collection: string,
    query: Query,
    addedKeys: string[],
    accountability: Accountability,
    permissions: PermissionSet | null,
  ): SubscriptionGroup {
    const key = this.keys.keyOf(collection, canonicalJson(query), accountability, permissions);
    let group = this.groups.get(key);
    if (!group) {
      group = new SubscriptionGroup(key, collection, query, addedKeys, accountability, permissions, this.deps.shownMax);
      this.groups.set(key, group);
      let set = this.byCollection.get(collection);
      if (!set) this.byCollection.set(collection, (set = new Set()));
      set.add(group);
    }
    return group;
  }

  private leave(member: Member): void {
    member.closed = true;
    const { group } = member;
    group.members.delete(member);
    if (group.members.size > 0 || this.groups.get(group.key) !== group) return;
    this.groups.delete(group.key);
    const set = this.byCollection.get(group.collection);
    set?.delete(group);
    if (set?.size === 0) this.byCollection.delete(group.collection);
  }

  /** Moves a member to the group of its new access (queued: events before it are read with the old one). */
  private reauthenticate(member: Member, accountability: Accountability): void {
    member.accountability = accountability;
    void this.serialise(member.group.collection, async () => {
      if (member.closed) return;
      const permissions = await this.deps.access.permissionsOf(accountability);
      this.move(member, permissions);
    }).catch((error: unknown) => this.logError(error, 'Realtime: regrouping a re-authenticated subscription failed'));
  }

  private move(member: Member, permissions: PermissionSet | null): void {
    const old = member.group;
    const { collection, query, addedKeys } = old;
    const key = this.keys.keyOf(collection, canonicalJson(query), member.accountability, permissions);
    if (key === old.key) return;
    this.leave(member);
    const fresh = !this.groups.has(key);
    const group = this.groupFor(collection, query, addedKeys, member.accountability, permissions);
    // A new group starts from what its first members were shown.
    if (fresh) group.adopt(old);
    member.group = group;
    member.closed = false;
    group.members.add(member);
  }

  /** A permissions change replaced the group's permission set: its members may no longer read alike. */
  private async regroup(group: SubscriptionGroup): Promise<void> {
    if (group.reader.admin) return;
    const permissions = await this.deps.access.permissionsOf(group.reader);
    if (permissions === group.permissions) return;
    const key = this.keys.keyOf(group.collection, canonicalJson(group.query), group.reader, permissions);
    if (key === group.key) {
      group.permissions = permissions;
      return;
    }
    for (const member of [...group.members]) {
      this.move(member, await this.deps.access.permissionsOf(member.accountability));
    }
  }

  private async onChange(event: ChangeEvent): Promise<void> {
    try {
      for (const group of [...(this.byCollection.get(event.collection) ?? [])]) await this.regroup(group);
    } catch (error) {
      this.logError(error, `Realtime: reloading permissions for ${event.collection} failed`);
    }
    const groups = [...(this.byCollection.get(event.collection) ?? [])];
    await Promise.all(groups.map((group) => this.deliver(group, event)));
  }

  private async deliver(group: SubscriptionGroup, event: ChangeEvent): Promise<void> {
    try {
      if (event.action === 'delete') {
        const whole = group.overflowed || group.readsEveryRow;
        const gone = event.keys.filter((key) => group.forget(String(key)) || whole);
        if (gone.length) this.send(group, 'delete', gone);
        return;
      }
      const overview = this.deps.schema().collections[group.collection];
      if (!overview) throw new ForbiddenError();
      const { data } = await this.deps.items.rowsKeys(
        group.collection,
        event.keys,
        { ...group.query, limit: undefined, offset: undefined, page: undefined },
        group.reader,
        readOptions(group.collection),
      );
      const rows = asRows(data);
      const keyOf = (row: Row) => String(keyOfValues(overview, row));
      const readable = new Set(rows.map(keyOf));
      const entering = rows.filter((row) => event.action === 'create' || !group.showing(keyOf(row)));
      const staying = event.action === 'update' ? rows.filter((row) => group.showing(keyOf(row))) : [];
      const leaving: Key[] =
        event.action === 'update'
          ? event.keys.filter((key) => !readable.has(String(key)) && group.forget(String(key)))
          : [];
      for (const row of rows) group.show(keyOf(row));
      if (entering.length) this.send(group, 'create', group.visible(entering));
      if (staying.length) this.send(group, 'update', group.visible(staying));
      if (leaving.length) this.send(group, 'delete', leaving);
    } catch (error) {
      this.failed(group, error);
    }
  }

  private send(group: SubscriptionGroup, name: SubscriptionEventName, data: Row[] | Key[]): void {
    const json = JSON.stringify(data);
    for (const member of group.members) {
      if (member.closed) continue;
      try {
        member.sink.event(name, data, json);
      } catch (error) {
        this.logError(error, `Realtime: a subscriber of ${group.collection} failed to take an event`);
      }
    }
  }

  /**
   * A re-read failed. A client error (the collection or a queried field is gone, read access revoked) ends the
   * group's subscriptions with that error; anything else loses this event only and is logged as unexpected.
   */
  private failed(group: SubscriptionGroup, error: unknown): void {
    const ended = error instanceof ServiceError && error.status < 500;
    if (ended) this.deps.log.warn(`Realtime: subscriptions to ${group.collection} ended: ${error.message}`);
    else this.logError(error, `Realtime: re-reading ${group.collection} for its subscribers failed`);
    const shape = error instanceof ServiceError ? { code: error.code, message: error.message } : UNEXPECTED;
    for (const member of [...group.members]) {
      if (ended) this.leave(member);
      try {
        member.sink.error?.(shape, ended);
      } catch (sinkError) {
        this.logError(sinkError, `Realtime: a subscriber of ${group.collection} failed to take an error`);
      }
    }
  }

  private logError(error: unknown, message: string): void {
    if (this.deps.log.error) this.deps.log.error(error, message);
    else this.deps.log.warn(`${message}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
