/**
 * An active user's role chain, policies and admin/app flags, computed from the database as Directus 11 does. The
 * one place this is derived: the per-request resolver caches it, login uses it for the token's informational claims.
 */
import type { Database } from '../db/connection.js';
import { AccessRepository } from '../db/repositories/access.js';
import { UsersRepository } from '../db/repositories/users.js';
import type { Accountability } from '../permissions/accountability.js';

const flag = (v: unknown) => v === true || v === 1 || v === '1';

export type UserAccountability = Omit<Accountability, 'ip'> & {
  /** The non-empty `ip_access` allow-lists of the user's policies (CSV each). */
  ipAccess: string[];
};

/** null when no active user has that id or static token. */
export async function loadUserAccountability(
  db: Database,
  by: 'id' | 'token',
  value: string,
): Promise<UserAccountability | null> {
  const access = new AccessRepository(db);
  const user = await new UsersRepository(db).forAccountability(by, value);
  if (!user || user.status !== 'active') return null;

  const roles: string[] = [];
  let role: string | null = user.role ?? null;
  while (role && !roles.includes(role)) {
    roles.push(role);
    role = (await access.parentRole(role))?.parent ?? null;
  }
  const policyIds = [...new Set(await access.policiesOf(user.id, roles))];
  const policies = policyIds.length ? await access.policyFlags(policyIds) : [];
  return {
    user: String(user.id),
    role: user.role ?? null,
    roles,
    policies: policyIds,
    admin: policies.some((p) => flag(p.admin_access)),
    app: policies.some((p) => flag(p.app_access) || flag(p.admin_access)),
    ipAccess: policies.map((p) => (typeof p.ip_access === 'string' ? p.ip_access.trim() : '')).filter(Boolean),
  };
}
