/**
 * Roles, policies, permissions and users written straight into the service_* tables, for permission tests that
 * must not depend on the system-collection endpoints they may be testing.
 */
import { randomUUID } from 'node:crypto';
import { PUBLIC_POLICY_ID } from '../../src/app/bootstrap.js';
import type { TestApp } from './test-app.js';
import { queryBuilder } from '../../src/db/connection.js';

export interface PermissionSpec {
  collection: string;
  action?: 'create' | 'read' | 'update' | 'delete';
  fields?: string;
  permissions?: Record<string, unknown> | null;
  validation?: Record<string, unknown> | null;
  presets?: Record<string, unknown> | null;
}

export interface PolicySpec {
  name?: string;
  permissions: PermissionSpec[];
  app_access?: boolean;
  admin_access?: boolean;
  ip_access?: string | null;
}

/** Creates a policy with its permission rows; returns its id. */
export async function createPolicy(t: TestApp, spec: PolicySpec): Promise<string> {
  const knex = queryBuilder(t.context.db);
  const id = randomUUID();
  await knex('service_policies').insert({
    id,
    name: spec.name ?? `policy ${id.slice(0, 8)}`,
    app_access: spec.app_access ?? false,
    admin_access: spec.admin_access ?? false,
    ip_access: spec.ip_access ?? null,
  });
  await insertPermissions(t, id, spec.permissions);
  return id;
}

export async function insertPermissions(t: TestApp, policy: string, permissions: PermissionSpec[]): Promise<void> {
  if (!permissions.length) return;
  await queryBuilder(t.context.db)('service_permissions').insert(
    permissions.map((p) => ({
      policy,
      collection: p.collection,
      action: p.action ?? 'read',
      fields: p.fields ?? '*',
      permissions: p.permissions ? JSON.stringify(p.permissions) : null,
      validation: p.validation ? JSON.stringify(p.validation) : null,
      presets: p.presets ? JSON.stringify(p.presets) : null,
    })),
  );
}

/** A role holding the given policies, and a user in it with a static token; returns the user id and token. */
export async function createUserWithPolicies(
  t: TestApp,
  policies: string[],
  options: { parentRole?: string; email?: string } = {},
): Promise<{ id: string; token: string; role: string }> {
  const knex = queryBuilder(t.context.db);
  const role = randomUUID();
  await knex('service_roles').insert({
    id: role,
    name: `role ${role.slice(0, 8)}`,
    parent: options.parentRole ?? null,
  });
  for (const policy of policies) await knex('service_access').insert({ id: randomUUID(), role, user: null, policy });
  const id = randomUUID();
  const token = `token-${randomUUID()}`;
  await knex('service_users').insert({
    id,
    email: options.email ?? `${id.slice(0, 8)}@example.com`,
    status: 'active',
    role,
    token,
    provider: 'default',
  });
  return { id, token, role };
}

/** Grants the Public policy (unauthenticated requests) some permissions. */
export async function grantPublic(t: TestApp, permissions: PermissionSpec[]): Promise<void> {
  await insertPermissions(t, PUBLIC_POLICY_ID, permissions);
  await t.context.permissionsChanged();
}
