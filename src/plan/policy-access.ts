/**
 * Read access from permission rules (Directus docs: Access control): rules for (collection, read) are additive — rows visible
 * under any rule, each field visible where a rule granting it holds. Rules are planned with full access (a rule is
 * trusted, not checked against itself); a rule that no longer fits the schema matches nothing, so a stale permission
 * can only ever hide data.
 */
import type { PermissionSet } from '../permissions/permission-store.js';
import type { FilterNode } from '../request/query.js';
import type { CollectionOverview } from '../schema/types.js';
import { FULL_ACCESS, type AccessPolicy, type CollectionAccess } from './access.js';
import { planFilter, type FilterContext } from './filter-planner.js';
import type { PlannedFilter } from './read-plan.js';

const NOTHING: PlannedFilter = { kind: 'constant', value: false };

export function policyAccess(permissions: PermissionSet, ctx: Omit<FilterContext, 'access'>): AccessPolicy {
  const cache = new Map<string, CollectionAccess | null>();
  return {
    read(collection) {
      if (!cache.has(collection.collection))
        cache.set(collection.collection, collectionAccess(collection, permissions, ctx));
      return cache.get(collection.collection)!;
    },
  };
}

function collectionAccess(
  collection: CollectionOverview,
  permissions: PermissionSet,
  ctx: Omit<FilterContext, 'access'>,
): CollectionAccess | null {
  const rules = permissions.for(collection.collection, 'read');
  if (!rules.length) return null;
  const planned = rules.map((rule) => ({ fields: rule.fields, filter: planRule(collection, rule.permissions, ctx) }));
  const everyRow = planned.some((p) => p.filter === null);
  const guards = new Map<string, PlannedFilter | null | undefined>();
  return {
    filter: everyRow ? null : or(planned.map((p) => p.filter!)),
    guard(field) {
      if (guards.has(field)) return guards.get(field);
      const granting = planned.filter((p) => p.fields === '*' || p.fields.includes(field));
      let guard: PlannedFilter | null | undefined;
      if (!granting.length || !collection.fields[field]) guard = undefined;
      else if (granting.length === planned.length || granting.some((p) => p.filter === null)) guard = null;
      else guard = or(granting.map((p) => p.filter!));
      guards.set(field, guard);
      return guard;
    },
  };
}

function planRule(
  collection: CollectionOverview,
  rule: FilterNode | null | false,
  ctx: Omit<FilterContext, 'access'>,
): PlannedFilter | null {
  if (rule === null) return null;
  if (rule === false) return NOTHING;
  try {
    return planFilter(collection, rule, { ...ctx, access: FULL_ACCESS, rule: true });
  } catch {
    return NOTHING;
  }
}

function or(filters: PlannedFilter[]): PlannedFilter {
  return filters.length === 1 ? filters[0]! : { kind: 'or', children: filters };
}
