/**
 * The fan-out engine behind every realtime front end (/websocket, graphql-ws). One ChangeEvents listener per
 * instance; subscriptions are grouped by what makes their reads identical (group-key.ts), and per event each group
 * of the collection re-reads the changed items once, with its members' accountability, and sends the rows (serialised
 * once) to every member. Events carry keys only (change-events.ts), so fields and item rules apply per group.
 *
 * Rights: a member whose socket re-resolved to other rights (a new role, a detached policy, a demotion, a re-auth)
 * moves to the group of those rights, and a rights notice (rights-notices.ts) regroups the groups whose permission set
 * was replaced; a group that is new or whose rules changed is checked at once (a plan, no statement) and, when its
 * members may no longer read what they asked for, their subscriptions end with the error (the client is told). An
 * event whose reads overlapped a change of rights (a notice, a member moving) is read again, so that none read under
 * older rights is sent. Cost: one re-read per group per event, at most READS_AT_ONCE at a time; what a user or an
 * address may hold is bounded by subscription-quota.ts.
 *
 * Order: the work of one collection (first reads of new subscriptions, events, regrouping after a re-auth) runs one
 * piece at a time in arrival order, so a subscriber gets the events of a collection in commit order, never before its
 * `init`, and none committed after its first read is missed. Groups of one event are read in parallel. Events that
 * queue up behind a re-read merge with the last waiting one of the same action (docs/design/realtime-fan-out.md).
 */
import { ServiceError } from '../../errors/catalogue.js';
import { toServiceError } from '../../errors/to-service-error.js';
import type { Accountability } from '../../permissions/accountability.js';
import type { AccessResolver } from '../../permissions/access-resolver.js';
import type { PermissionSet } from '../../permissions/permission-store.js';
import type { Key } from '../../plan/mutation-plan.js';
import { keyOfValues } from '../../plan/row-key.js';
import type { Query } from '../../request/query.js';
import type { SchemaOverview } from '../../schema/types.js';
import type { ItemsService } from '../../engine/read/items-service.js';
import type { ChangeEvent, ChangeEvents } from '../../engine/write/change-events.js';
import { EventHold } from './event-hold.js';
import { applyEvent, asRows, mapLimited, readEvent, readOptions, type Row } from './group-events.js';
import { canonicalJson, GroupKeys } from './group-key.js';
import { SubscriptionGroup, type Member } from './subscription-group.js';
import { quotaCounter, type QuotaCounter } from '../socket-counters.js';
import type { QuotaTicket, SubscriptionLimits } from '../subscription-quota.js';
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
  /** What a user or a client address may hold (subscription-quota.ts). */
  limits: SubscriptionLimits;
  /** WORKERS: with more than one, the counts are the primary's, for all the workers (realtime/socket-counters.ts). */
  workers?: number;
  log: HubLog;
}

/** Groups re-read at once for one event: a write's fan-out holds no more rows and pool connections than this. */
const READS_AT_ONCE = 8;
/** Reads of one event overlapped by changes of rights this many times in a row: the event is dropped (logged). */
const READ_ATTEMPTS = 3;

export class SubscriptionHub {
  private readonly keys = new GroupKeys();
  private readonly groups = new Map<string, SubscriptionGroup>();
  /** Each live subscription's place in the quota (released once, at its close). */
  private readonly tickets = new Map<HubSubscription, QuotaTicket>();
  private readonly byCollection = new Map<string, Set<SubscriptionGroup>>();
  /** Per collection, the tail of its work in progress (absent when idle). */
  private readonly queues = new Map<string, Promise<void>>();
  /** Per collection, the last queued event when nothing was queued after it and it has not started. */
  private readonly waiting = new Map<string, ChangeEvent>();
  private readonly stopListening: () => void;
  private readonly quota: QuotaCounter;
  private readonly hold = new EventHold((event) => this.queueEvent(event));
  /** Moves on at every rights notice: reads that began before one are not sent. */
  private epoch = 0;
  /** Per collection, the epoch its groups were last regrouped at. */
  private readonly settledAt = new Map<string, number>();
  /** Per collection, members whose accountability changed and who have not moved yet. */
  private readonly moving = new Map<string, Set<Member>>();
  /** Per collection, moves on when a member's accountability changes (its events in flight are read again). */
  private readonly memberChanges = new Map<string, number>();

  constructor(private readonly deps: HubDeps) {
    this.stopListening = deps.changes.listen((event) => {
      if (!this.hold.offer(event)) this.queueEvent(event);
    });
    this.quota = quotaCounter(deps.limits, deps.workers ?? 1);
  }

  /**
   * Users', roles', policies', access or permission rows changed: every group regroups and re-checks its rules before
   * its next event, and now (so that a subscription that lost its rights is told without waiting for an event).
   */
  rightsChanged(): void {
    this.epoch++;
    for (const collection of this.byCollection.keys())
      void this.serialise(collection, () => this.settle(collection)).catch((error: unknown) =>
        this.logError(error, `Realtime: re-checking the subscriptions to ${collection} failed`),
      );
  }

  /**
   * Holds events back until the returned function is called: a subscription on its way here (event-hold.ts) will
   * get the events committed since its front end read it, once `subscribe` has been called (it queues synchronously).
   */
  holdEvents(): () => void {
    return this.hold.take();
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
    const replaced = request.replaces ? this.tickets.get(request.replaces) : undefined;
    let ticket: QuotaTicket;
    try {
      const taken = this.quota.take(
        accountability.user,
        request.ip ?? null,
        `${collection}\u0000${canonicalJson(query)}`,
        replaced,
      );
      // In-process counts answer at once: the subscription is queued in this same turn, as it always was.
      ticket = taken instanceof Promise ? await taken : taken;
    } catch (error) {
      request.queued?.();
      throw error;
    }
    const subscribed = this.serialise(
      collection,
      async () => {
        // The first read checks the collection and the caller's right to read it (its error answers the subscribe);
        // a rights notice during it makes it stale: read again (the socket re-resolves the caller's own rights).
        let rows: Row[] = [];
        for (let attempt = 1; attempt <= READ_ATTEMPTS; attempt++) {
          const epoch = this.epoch;
          const options = readOptions(collection);
          rows = asRows((await this.deps.items.rowsMany(collection, query, accountability, undefined, options)).data);
          if (epoch === this.epoch) break;
        }
        const permissions = await this.deps.access.permissionsOf(accountability);
        const group = this.groupFor(collection, query, addedKeys, accountability, permissions);
        const member: Member = { sink, accountability, placed: accountability, group, closed: false };
        group.members.add(member);
        const current = this.deps.schema().collections[collection];
        for (const row of rows) {
          const key = current ? keyOfValues(current, row) : null;
          if (key !== null && key !== undefined) group.show(String(key));
        }
        const subscription: HubSubscription = {
          init: group.visible(rows),
          setAccountability: (next: Accountability) => this.reauthenticate(member, next),
          close: () => {
            if (!this.tickets.has(subscription)) return;
            this.tickets.delete(subscription);
            this.quota.release(ticket);
            this.leave(member);
          },
        };
        this.tickets.set(subscription, ticket);
        member.end = subscription.close;
        return subscription;
      },
      true,
    ).catch((error: unknown) => {
      this.quota.release(ticket);
      throw error;
    });
    request.queued?.();
    return subscribed;
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
    this.moving.clear();
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
    if (last && last.action === event.action && Boolean(last.apart) === Boolean(event.apart)) {
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

  /**
   * A member's socket re-resolved to other rights: it moves to their group before the collection's next read (and
   * now, so that a subscription those rights cannot serve is told at once). Its events in flight are read again.
   */
  private reauthenticate(member: Member, accountability: Accountability): void {
    if (member.closed) return;
    member.accountability = accountability;
    const { collection } = member.group;
    let set = this.moving.get(collection);
    if (!set) this.moving.set(collection, (set = new Set()));
    set.add(member);
    this.memberChanges.set(collection, (this.memberChanges.get(collection) ?? 0) + 1);
    void this.serialise(collection, () => this.settle(collection)).catch((error: unknown) =>
      this.logError(error, 'Realtime: regrouping a re-authenticated subscription failed'),
    );
  }

  /** Moves `member` to the group of its accountability under `permissions`; returns that group when it is new. */
  private move(member: Member, permissions: PermissionSet | null): SubscriptionGroup | null {
    const old = member.group;
    const { collection, query, addedKeys } = old;
    member.placed = member.accountability;
    const key = this.keys.keyOf(collection, canonicalJson(query), member.accountability, permissions);
    if (key === old.key) return null;
    this.leave(member);
    const fresh = !this.groups.has(key);
    const group = this.groupFor(collection, query, addedKeys, member.accountability, permissions);
    // A new group starts from what its first members were shown.
    if (fresh) group.adopt(old);
    member.group = group;
    member.closed = false;
    group.members.add(member);
    return fresh ? group : null;
  }

  /**
   * A permissions change replaced the group's permission set: its members may no longer read alike. Returns the
   * groups to check (its own when its rules changed, and the new groups its members moved to).
   */
  private async regroup(group: SubscriptionGroup): Promise<SubscriptionGroup[]> {
    if (group.reader.admin) return [];
    const permissions = await this.deps.access.permissionsOf(group.reader);
    if (permissions === group.permissions) return [];
    const key = this.keys.keyOf(group.collection, canonicalJson(group.query), group.reader, permissions);
    if (key === group.key) {
      group.permissions = permissions;
      return [group];
    }
    const fresh: SubscriptionGroup[] = [];
    for (const member of [...group.members]) {
      const moved = this.move(member, await this.deps.access.permissionsOf(member.accountability));
      if (moved) fresh.push(moved);
    }
    return fresh;
  }

  /**
   * Brings the collection's groups up to date with rights: members whose accountability changed move, groups whose
   * permission set was replaced since the last notice regroup, and every group that is new or has new rules is
   * checked. Runs in the collection's turn (serialise), before each event's reads.
   */
  private async settle(collection: string): Promise<void> {
    const check = new Set<SubscriptionGroup>();
    const moving = this.moving.get(collection);
    this.moving.delete(collection);
    for (const member of moving ?? []) {
      if (member.closed || member.placed === member.accountability) continue;
      const moved = this.move(member, await this.deps.access.permissionsOf(member.accountability));
      if (moved) check.add(moved);
    }
    const epoch = this.epoch;
    if ((this.settledAt.get(collection) ?? 0) !== epoch) {
      for (const group of [...(this.byCollection.get(collection) ?? [])])
        for (const changed of await this.regroup(group)) check.add(changed);
      this.settledAt.set(collection, epoch);
    }
    for (const group of check) if (group.members.size > 0) await this.verify(group);
  }

  /** Whether the group's members may still read what they asked for (planned, not run); if not, they are ended. */
  private async verify(group: SubscriptionGroup): Promise<void> {
    try {
      await this.deps.items.checkRead(group.collection, group.query, group.reader, readOptions(group.collection));
    } catch (error) {
      if (error instanceof ServiceError && error.status < 500) this.failed(group, error);
      else this.logError(error, `Realtime: checking the subscriptions to ${group.collection} failed`);
    }
  }

  /**
   * One event: the groups are settled, then read (READS_AT_ONCE at a time); if rights changed meanwhile (a notice, a
   * member's new accountability), every read may be stale and all are made again; then the outcomes are applied.
   */
  private async onChange(event: ChangeEvent): Promise<void> {
    const { collection } = event;
    for (let attempt = 1; ; attempt++) {
      const epoch = this.epoch;
      const changes = this.memberChanges.get(collection) ?? 0;
      try {
        await this.settle(collection);
      } catch (error) {
        this.logError(error, `Realtime: reloading permissions for ${collection} failed`);
      }
      const groups = [...(this.byCollection.get(collection) ?? [])];
      const schema = this.deps.schema();
      const outcomes = await mapLimited(groups, READS_AT_ONCE, (group) =>
        readEvent(this.deps.items, schema, group, event),
      );
      if (epoch === this.epoch && changes === (this.memberChanges.get(collection) ?? 0)) {
        groups.forEach((group, index) => {
          const outcome = outcomes[index]!;
          if (outcome.kind === 'failed') this.failed(group, outcome.error);
          else applyEvent(group, event, outcome, (...args) => this.send(...args));
        });
        return;
      }
      if (attempt === READ_ATTEMPTS) {
        this.deps.log.warn(`Realtime: an event of ${collection} was dropped: rights kept changing while it was read`);
        return;
      }
    }
  }

  private send(group: SubscriptionGroup, name: SubscriptionEventName, data: Row[] | Key[], apart: boolean): void {
    const items = data.map((item) => JSON.stringify(item));
    const json = `[${items.join(',')}]`;
    for (const member of group.members) {
      if (member.closed) continue;
      try {
        member.sink.event(name, data, json, items, apart);
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
    const service = toServiceError(error);
    const shape: SubscriptionError = { code: service.code, message: service.message };
    for (const member of [...group.members]) {
      if (ended) (member.end ?? (() => this.leave(member)))();
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
