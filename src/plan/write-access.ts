/**
 * Write access from permission rules (Directus docs: Access control): per (collection, action), the rules are additive — fields
 * unioned, item rules OR-ed, presets merged (later rules win), validation rules all applying. Variables
 * ($CURRENT_USER, $NOW, ...) are resolved here, per request, so the planner and the executor see plain values and
 * planned filters. Admins have no WriteAccess at all: nothing here runs for them.
 */
import type { PermissionSet } from '../permissions/permission-store.js';
import { parseDynamic } from '../request/parse-filter.js';
import { emptyRecord } from '../request/prototype-keys.js';
import type { CollectionOverview } from '../schema/types.js';
import { FULL_ACCESS } from './access.js';
import { planFilter, resolveDynamic, type FilterContext } from './filter-planner.js';
import type { PlannedFilter } from './read-plan.js';

export type WriteAction = 'create' | 'update' | 'delete';
/** A write action, or `share` (its rules read like a delete's: which rows; reported by /permissions/me/{c}/{key}). */
export type RuleAction = WriteAction | 'share';

export interface WriteRules {
  /** Fields the payload may name. */
  fields: '*' | ReadonlySet<string>;
  /** Values merged under the payload (resolved). */
  presets: Record<string, unknown>;
  /** Filter objects every payload must satisfy (resolved), evaluated like field validation rules. */
  validation: Record<string, unknown>[];
  /** Rows the action may touch (update / delete); null = every row. */
  filter: PlannedFilter | null;
}

export interface WriteAccess {
  /** null = the caller may not do `action` on `collection` at all. */
  rules(collection: CollectionOverview, action: RuleAction): WriteRules | null;
}

const NOTHING: PlannedFilter = { kind: 'constant', value: false };

export function policyWriteAccess(permissions: PermissionSet, ctx: Omit<FilterContext, 'access'>): WriteAccess {
  const cache = new Map<string, WriteRules | null>();
  return {
    rules(collection, action) {
      const key = `${collection.collection}\u0000${action}`;
      if (!cache.has(key)) cache.set(key, collectionRules(collection, action, permissions, ctx));
      return cache.get(key)!;
    },
  };
}

function collectionRules(
  collection: CollectionOverview,
  action: RuleAction,
  permissions: PermissionSet,
  ctx: Omit<FilterContext, 'access'>,
): WriteRules | null {
  const rules = permissions.for(collection.collection, action);
  if (!rules.length) return null;
  const fields = permissions.fields(collection.collection, action);
  // Keyed by the rules' own names (stored JSON): on no prototype, so that no name can replace it.
  const presets: Record<string, unknown> = Object.assign(
    emptyRecord(),
    ...rules.map((rule) => resolveVariables(rule.presets ?? {}, ctx)),
  );
  const validation = rules.flatMap((rule) =>
    rule.rawValidation ? [resolveVariables(rule.rawValidation, ctx) as Record<string, unknown>] : [],
  );
  let filter: PlannedFilter | null = null;
  if (action !== 'create') {
    const planned = rules.map((rule) => planRule(collection, rule.permissions, ctx));
    filter = planned.some((p) => p === null)
      ? null
      : planned.length === 1
        ? planned[0]!
        : { kind: 'or', children: planned as PlannedFilter[] };
  }
  return { fields, presets, validation, filter };
}

/** A rule is trusted (planned with full access); one that no longer fits the schema matches nothing. */
function planRule(
  collection: CollectionOverview,
  rule: Parameters<typeof planFilter>[1] | null | false,
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

/** Strings naming a variable anywhere inside `value` → the caller's values ($NOW as an ISO timestamp). */
export function resolveVariables(
  value: unknown,
  ctx: Pick<FilterContext, 'accountability' | 'now' | 'dynamic'>,
): unknown {
  if (typeof value === 'string') {
    if (!value.startsWith('$')) return value;
    let parsed;
    try {
      parsed = parseDynamic(value);
    } catch {
      return value;
    }
    if (!parsed) return value;
    const resolved = resolveDynamic(parsed, ctx);
    const plain = (v: unknown) => (v instanceof Date ? v.toISOString() : v);
    return Array.isArray(resolved) ? resolved.map(plain) : plain(resolved);
  }
  if (Array.isArray(value)) return value.map((item) => resolveVariables(item, ctx));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveVariables(v, ctx)]));
  return value;
}
