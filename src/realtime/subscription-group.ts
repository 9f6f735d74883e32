/**
 * Subscriptions whose re-reads are identical (group-key.ts): one re-read per event serves every member, its rows
 * serialised once. The group remembers the keys it has shown (bounded: the least recently shown are forgotten
 * beyond `shownMax`) to tell an item entering the members' rules (create) from one staying (update) or leaving
 * (delete). Once it has forgotten any, deletes are passed on whole, keys only, as Directus sends them. So are they
 * when the members read every row of the collection (no item rule, no filter or search in the query): then any
 * deleted row was theirs to see, whether shown or not (it existed before they subscribed, or was deleted before the
 * re-read of its create could show it).
 */
import { LRUCache } from 'lru-cache';
import type { Accountability } from '../permissions/accountability.js';
import type { PermissionSet } from '../permissions/permission-store.js';
import type { Query } from '../request/query.js';
import type { SubscriptionSink } from './subscription-sink.js';

export interface Member {
  sink: SubscriptionSink;
  accountability: Accountability;
  group: SubscriptionGroup;
  closed: boolean;
}

export class SubscriptionGroup {
  readonly members = new Set<Member>();
  /** Some shown key was forgotten (the bound was reached): deletes can no longer be filtered by what was shown. */
  overflowed = false;
  private readonly shownKeys: LRUCache<string, true>;

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
    shownMax: number,
  ) {
    this.shownKeys = new LRUCache<string, true>({
      max: shownMax,
      dispose: (_value, _key, reason) => {
        if (reason === 'evict') this.overflowed = true;
      },
    });
  }

  showing(key: string): boolean {
    return this.shownKeys.has(key);
  }

  show(key: string): void {
    this.shownKeys.set(key, true);
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
    for (const key of other.shownKeys.keys()) this.shownKeys.set(key, true);
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
