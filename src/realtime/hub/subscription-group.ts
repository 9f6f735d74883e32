/**
 * Subscriptions whose re-reads are identical (group-key.ts): one re-read per event serves every member, its rows
 * serialised once. The group remembers the keys it has shown (bounded: the least recently shown are forgotten
 * beyond `shownMax`) to tell an item entering the members' rules (create) from one staying (update) or leaving
 * (delete). Once it has forgotten any, deletes are passed on whole, keys only, as Directus sends them. So are they
 * when the members read every row of the collection (no item rule, no filter or search in the query): then any
 * deleted row was theirs to see, whether shown or not (it existed before they subscribed, or was deleted before the
 * re-read of its create could show it).
 */
import type { Accountability } from '../../permissions/accountability.js';
import type { PermissionSet } from '../../permissions/permission-store.js';
import type { Query } from '../../request/query.js';
import type { SubscriptionSink } from './subscription-sink.js';

export interface Member {
  sink: SubscriptionSink;
  /** The subscriber's rights as its socket last resolved them. */
  accountability: Accountability;
  /** The accountability the member was placed in its group with (another one: it has yet to move). */
  placed: Accountability;
  group: SubscriptionGroup;
  closed: boolean;
  /** Ends the subscription (its place in the quota too); set once it is live. */
  end?: () => void;
}

export class SubscriptionGroup {
  readonly members = new Set<Member>();
  /** Some shown key was forgotten (the bound was reached): deletes can no longer be filtered by what was shown. */
  overflowed = false;
  /**
   * The shown keys, least recently shown first (a Map keeps insertion order: showing again moves a key to the end).
   * Not an LRUCache: lru-cache allocates its arrays for `shownMax` entries up front (~220 kB per group at 10,000),
   * which made every subscription with a query of its own cost that much; a Map grows with what is shown.
   */
  private readonly shownKeys = new Map<string, true>();

  constructor(
    readonly key: string,
    readonly collection: string,
    /** The members' query, with the key fields added to follow the items. */
    readonly query: Query,
    /** Key fields the members did not ask for: stripped from what they are sent. */
    readonly addedKeys: string[],
    /** Whose accountability reads for the group: its first member's (the key says every member's reads alike). */
    readonly reader: Accountability,
    /** The permission set the key was computed with; another object means permissions changed. */
    public permissions: PermissionSet | null,
    private readonly shownMax: number,
  ) {}

  showing(key: string): boolean {
    return this.shownKeys.has(key);
  }

  show(key: string): void {
    this.shownKeys.delete(key);
    this.shownKeys.set(key, true);
    if (this.shownKeys.size <= this.shownMax) return;
    this.shownKeys.delete(this.shownKeys.keys().next().value!);
    this.overflowed = true;
  }

  /** True when the key was shown (and is now forgotten). */
  forget(key: string): boolean {
    return this.shownKeys.delete(key);
  }

  /** Every row of the collection is in the members' reads: deletes need no memory of what was shown. */
  get readsEveryRow(): boolean {
    if (this.query.filter || this.query.search) return false;
    if (this.reader.admin) return true;
    return this.permissions?.for(this.collection, 'read').some((rule) => rule.permissions === null) ?? false;
  }

  shownCount(): number {
    return this.shownKeys.size;
  }

  /** Take over what another group had shown (its members move here and have seen those items). */
  adopt(other: SubscriptionGroup): void {
    for (const key of other.shownKeys.keys()) this.show(key);
    if (other.overflowed) this.overflowed = true;
  }

  /** The rows as members see them: without the added key fields. */
  visible(rows: Record<string, unknown>[]): Record<string, unknown>[] {
    if (this.addedKeys.length === 0) return rows;
    return rows.map((row) => {
      const copy = { ...row };
      for (const name of this.addedKeys) delete copy[name];
      return copy;
    });
  }
}
