/**
 * What makes two subscriptions' re-reads identical, so that the hub reads once per group and per event: the
 * collection, the query (canonical: object keys sorted, arrays in their order since field order is output order)
 * and the caller's access — "admin", or the policy set and app flag. The caller's own identity (user, role, roles)
 * joins the key only when the query or the rules of its policy set name the caller ($CURRENT_USER, $CURRENT_ROLE,
 * $CURRENT_ROLES, $CURRENT_POLICIES and their `.path` forms): two users of one role share a group unless a rule
 * says "their own rows". Nothing else of an accountability reaches a read plan (the IP was spent choosing policies).
 */
import type { Accountability } from '../../permissions/accountability.js';
import type { PermissionSet } from '../../permissions/permission-store.js';

/** A parsed filter value naming the caller is `{dynamic: 'CURRENT_USER', …}`; raw rule text says `$CURRENT_USER`. */
const NAMES_CALLER = /CURRENT_(USER|ROLES?|POLICIES)/;

/** JSON with object keys sorted (the same query, however its keys were ordered, gives one text). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
    // On no prototype: a key `__proto__` (an alias) stays a key of the text instead of replacing the prototype.
    const sorted: Record<string, unknown> = Object.create(null);
    for (const name of Object.keys(v).sort()) sorted[name] = (v as Record<string, unknown>)[name];
    return sorted;
  });
}

export class GroupKeys {
  /** Per permission-set object (a permissions change makes new ones): whether its rules name the caller. */
  private readonly callerRules = new WeakMap<PermissionSet, boolean>();

  /** Whether reads under `permissions` with this query text depend on who exactly the caller is. */
  namesCaller(queryText: string, permissions: PermissionSet | null): boolean {
    if (NAMES_CALLER.test(queryText)) return true;
    if (!permissions) return false;
    let names = this.callerRules.get(permissions);
    if (names === undefined) {
      names = NAMES_CALLER.test(JSON.stringify(permissions.rules));
      this.callerRules.set(permissions, names);
    }
    return names;
  }

  /** `permissions`: the caller's set (null for admins), as AccessResolver.permissionsOf gives it. */
  keyOf(
    collection: string,
    queryText: string,
    accountability: Accountability,
    permissions: PermissionSet | null,
  ): string {
    const access = accountability.admin
      ? 'admin'
      : `${accountability.app ? 'app' : 'api'}:${[...accountability.policies].sort().join(',')}`;
    const caller = this.namesCaller(queryText, permissions)
      ? `\u0001${accountability.user}\u0001${accountability.role}\u0001${[...accountability.roles].join(',')}`
      : '';
    return `${collection}\u0000${queryText}\u0000${access}${caller}`;
  }
}
