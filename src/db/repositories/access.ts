/** service_roles, service_access and service_policies: what a caller's roles and policies are. */
import type { Database } from '../connection.js';
import { read } from './statements.js';

export interface PolicyFlags {
  admin_access: unknown;
  app_access: unknown;
  ip_access: unknown;
}

export interface PolicyAccessFlags {
  admin_access: unknown;
  app_access: unknown;
  enforce_tfa: unknown;
}

export class AccessRepository {
  constructor(private readonly db: Database) {}

  parentRole(role: string): Promise<{ parent: string | null } | undefined> {
    return read(this.db, (knex) => knex('service_roles').select('parent').where('id', role).first());
  }

  /** A role by id or by name. */
  /** The ids of the roles with this id or name (names are not unique: a caller tells one from several). */
  async roleIds(by: 'id' | 'name', value: string): Promise<string[]> {
    const rows: { id: string }[] = await read(this.db, (knex) =>
      knex('service_roles').where(by, value).select('id').orderBy('id'),
    );
    return rows.map((row) => String(row.id));
  }

  /** The policies attached to the user directly or to any of `roles` (one row per attachment). */
  async policiesOf(user: string, roles: string[]): Promise<string[]> {
    const rows: { policy: string }[] = await read(this.db, (knex) => {
      const access = knex('service_access').select('policy').where('user', user);
      if (roles.length) access.orWhereIn('role', roles);
      return access;
    });
    return rows.map((row) => row.policy);
  }

  /** The policies attached to nobody in particular: the Public policies. */
  async publicPolicies(): Promise<string[]> {
    const rows: { policy: string }[] = await read(this.db, (knex) =>
      knex('service_access').select('policy').whereNull('role').whereNull('user'),
    );
    return rows.map((row) => row.policy);
  }

  policyFlags(ids: string[]): Promise<PolicyFlags[]> {
    return read(this.db, (knex) =>
      knex('service_policies').select('admin_access', 'app_access', 'ip_access').whereIn('id', ids),
    );
  }

  policyAccess(ids: string[]): Promise<PolicyAccessFlags[]> {
    return read(this.db, (knex) =>
      knex('service_policies').select('app_access', 'admin_access', 'enforce_tfa').whereIn('id', ids),
    );
  }

  /** Whether an administrator policy exists (the installation has been made). */
  async adminPolicyExists(): Promise<boolean> {
    return Boolean(await read(this.db, (knex) => knex('service_policies').where('admin_access', true).first()));
  }

  permissionRows(policies: string[]): Promise<Record<string, unknown>[]> {
    return read(this.db, (knex) => knex('service_permissions').whereIn('policy', policies).select('*'));
  }
}
