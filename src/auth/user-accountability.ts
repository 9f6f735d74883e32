/**
 * An active user's role chain, policies and admin/app flags, computed from the database as Directus 11 does. The
 * one place this is derived: the per-request resolver caches it, login uses it for the token's informational claims.
 */
import type { Knex } from 'knex';
import type { Accountability } from '../permissions/accountability.js';

const flag = (v: unknown) => v === true || v === 1 || v === '1';

export type UserAccountability = Omit<Accountability, 'ip'> & {
  /** The non-empty `ip_access` allow-lists of the user's policies (CSV each). */
  ipAccess: string[];
};

/** null when no active user has that id or static token. */
export async function loadUserAccountability(knex: Knex, by: 'id' | 'token', value: string): Promise<UserAccountability | null> {
  const user = await knex('service_users').select('id', 'role', 'status').where(by, value).first();
  if (!user || user.status !== 'active') return null;

  const roles: string[] = [];
  let role: string | null = user.role ?? null;
  while (role && !roles.includes(role)) {
    roles.push(role);
    const row = await knex('service_roles').select('parent').where('id', role).first();
    role = row?.parent ?? null;
  }
  const access = knex('service_access').select('policy').where('user', user.id);
  if (roles.length) access.orWhereIn('role', roles);
  const policyIds = [...new Set((await access).map((r: { policy: string }) => r.policy))];
  const policies: { admin_access: unknown; app_access: unknown; ip_access: unknown }[] = policyIds.length
    ? await knex('service_policies').select('admin_access', 'app_access', 'ip_access').whereIn('id', policyIds)
    : [];
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
