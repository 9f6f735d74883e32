/**
 * Compiled reads by request shape: the same read (collection, Query IR, the caller's permission set and identity,
 * read options) under the same schema version gives the same SQL and parameters, so the planner and the compiler
 * run once per shape and the statement is reused. Nothing that moves by itself is cached: a read whose query or
 * rules name `$NOW` (its value changes every request) or `$CURRENT_USER.<field>`-style paths (loaded from the
 * database per request) is always planned afresh. A schema change gives a new schema version, a permissions change
 * new permission-set objects, so stale entries are never hit and simply age out of the LRU.
 */
import { LRUCache } from 'lru-cache';
import type { Accountability } from '../permissions/accountability.js';
import type { PermissionSet } from '../permissions/permission-store.js';
import type { Query } from '../request/query.js';

export interface CachedRead {
  sql: string;
  params: unknown[];
  /** What the response needs from the plan. */
  primary: string | null;
  totalCount: boolean;
  filterCount: boolean;
}

/** Variables whose value depends on the moment or on a row read per request. */
const MOVING = /\$(NOW|CURRENT_(USER|ROLE)\.)/;

export class StatementCache {
  private readonly entries: LRUCache<string, CachedRead>;
  private readonly sets = new WeakMap<PermissionSet, string>();
  private nextSet = 0;

  constructor(size: number) {
    this.entries = new LRUCache({ max: size });
  }

  /** The cache key of a read, or null when it must be planned every time. */
  key(schemaVersion: number, collection: string, query: Query, accountability: Accountability, permissions: PermissionSet | null, options: string): string | null {
    const text = JSON.stringify(query);
    if (MOVING.test(text)) return null;
    let caller = 'admin';
    if (permissions) {
      const set = this.setKey(permissions);
      if (set === null) return null;
      // Rules may name the caller ($CURRENT_USER, $CURRENT_ROLE, $CURRENT_ROLES): their values are in the key.
      caller = `${set}\u0001${accountability.user}\u0001${accountability.role}\u0001${accountability.roles.join(',')}\u0001${accountability.app}`;
    } else if (text.includes('$CURRENT')) {
      caller = `admin\u0001${accountability.user}\u0001${accountability.role}\u0001${accountability.roles.join(',')}`;
    }
    return `${schemaVersion}\u0000${collection}\u0000${options}\u0000${caller}\u0000${text}`;
  }

  get(key: string): CachedRead | undefined {
    return this.entries.get(key);
  }

  set(key: string, read: CachedRead): void {
    this.entries.set(key, read);
  }

  /** A short id per permission-set object; null for sets whose rules move ($NOW, per-request paths). */
  private setKey(permissions: PermissionSet): string | null {
    let id = this.sets.get(permissions);
    if (id === undefined) {
      id = permissions.dynamicPaths.length || MOVING.test(JSON.stringify(permissions.rules)) ? '' : `p${this.nextSet++}`;
      this.sets.set(permissions, id);
    }
    return id || null;
  }
}
