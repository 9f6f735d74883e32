/**
 * What the caller may do, as the introspection endpoints report it (Directus docs: Access control): `/permissions/me`,
 * `/policies/me/globals`. Computed from the same permission sets the planner uses.
 */
import type { Database } from '../db/connection.js';
import { AccessRepository } from '../db/repositories/access.js';
import type { Accountability } from '../permissions/accountability.js';
import type { PermissionAction } from '../permissions/permission-rule.js';
import type { PermissionStore } from '../permissions/permission-store.js';
import { emptyRecord } from '../request/prototype-keys.js';
import type { SchemaOverview } from '../schema/types.js';

const ACTIONS: PermissionAction[] = ['create', 'read', 'update', 'delete', 'share'];

export interface ActionAccess {
  access: 'none' | 'partial' | 'full';
  fields?: string[];
  presets?: Record<string, unknown>;
}

const flag = (v: unknown) => v === true || v === 1 || v === '1';

export class MeService {
  constructor(
    private readonly db: Database,
    private readonly permissions: PermissionStore,
    private readonly schema: () => SchemaOverview,
  ) {}

  async collectionAccess(
    accountability: Accountability,
  ): Promise<Record<string, Record<PermissionAction, ActionAccess>>> {
    const result: Record<string, Record<PermissionAction, ActionAccess>> = emptyRecord();
    if (accountability.admin) {
      for (const name of Object.keys(this.schema().collections)) {
        result[name] = Object.fromEntries(
          ACTIONS.map((a) => [a, { access: 'full', fields: ['*'], presets: {} }]),
        ) as Record<PermissionAction, ActionAccess>;
      }
      return result;
    }
    const set = await this.permissions.forPolicies(accountability.policies, { app: accountability.app });
    const collections = new Set(set.rules.map((r) => r.collection));
    for (const collection of collections) {
      const entry = {} as Record<PermissionAction, ActionAccess>;
      for (const action of ACTIONS) {
        const rules = set.for(collection, action);
        if (!rules.length) {
          entry[action] = { access: 'none' };
          continue;
        }
        const fields = rules.some((r) => r.fields === '*')
          ? ['*']
          : [...new Set(rules.flatMap((r) => (r.fields === '*' ? [] : r.fields)))];
        entry[action] = {
          access: rules.some((r) => r.permissions === null) ? 'full' : 'partial',
          fields,
          presets: Object.assign(emptyRecord(), ...rules.map((r) => r.presets ?? {})),
        };
      }
      result[collection] = entry;
    }
    return result;
  }

  async globals(
    accountability: Accountability,
  ): Promise<{ app_access: boolean; admin_access: boolean; enforce_tfa: boolean }> {
    if (!accountability.policies.length) return { app_access: false, admin_access: false, enforce_tfa: false };
    const rows = await new AccessRepository(this.db).policyAccess(accountability.policies);
    return {
      app_access: accountability.app,
      admin_access: accountability.admin,
      enforce_tfa: rows.some((r) => flag(r.enforce_tfa)),
    };
  }
}
