/**
 * The permission rows of a set of policies (Directus docs: Access control), parsed once and cached per policy set
 * until a change (the `permissions` change of cache/invalidation.ts, here or on another instance). Rules stay Filter
 * ASTs here; the planner resolves them per request (dynamic values such as $CURRENT_USER differ per caller).
 */
import type { Cache } from '../cache/cache.js';
import { CacheRegistry } from '../cache/cache-registry.js';
import type { Database } from '../db/connection.js';
import { AccessRepository } from '../db/repositories/access.js';
import { dynamicPaths, parseFilter } from '../request/parse-filter.js';
import { APP_ACCESS_RULES } from './app-access-rules.js';
import { auditReadRule } from './audit-read-fields.js';
import type { FilterNode } from '../request/query.js';
import type { PermissionAction, PermissionRule } from './permission-rule.js';

export class PermissionSet {
  private readonly byKey = new Map<string, PermissionRule[]>();
  /** `$CURRENT_USER.<path>` / `$CURRENT_ROLE.<path>` variables the rules use (their values are loaded per caller). */
  readonly dynamicPaths: string[];

  readonly rules: PermissionRule[];

  constructor(rules: PermissionRule[]) {
    this.rules = rules.map(auditReadRule);
    const paths = new Set<string>();
    for (const rule of this.rules) {
      for (const node of [rule.permissions, rule.validation])
        if (node) for (const path of dynamicPaths(node)) paths.add(path);
      for (const value of variables([rule.presets, rule.rawValidation]))
        if (/^\$CURRENT_(USER|ROLE)\./.test(value)) paths.add(value);
    }
    this.dynamicPaths = [...paths];
    for (const rule of this.rules) {
      const key = `${rule.collection}\u0000${rule.action}`;
      this.byKey.set(key, [...(this.byKey.get(key) ?? []), rule]);
    }
  }

  for(collection: string, action: PermissionAction): PermissionRule[] {
    return this.byKey.get(`${collection}\u0000${action}`) ?? [];
  }

  /** The fields the rules for (collection, action) grant together: `*`, or their union (empty without rules). */
  fields(collection: string, action: PermissionAction): '*' | Set<string> {
    const rules = this.for(collection, action);
    if (rules.some((rule) => rule.fields === '*')) return '*';
    return new Set(rules.flatMap((rule) => rule.fields as string[]));
  }
}

const MAX_SETS = 1_000;

export class PermissionStore {
  private readonly sets: Cache<string, PermissionSet>;
  private readonly access: AccessRepository;

  constructor(db: Database, caches = new CacheRegistry()) {
    this.access = new AccessRepository(db);
    this.sets = caches.create('permission-sets', { max: MAX_SETS });
  }

  /** With `app`, the built-in minimal permissions of app users are added (app-access-rules.ts). */
  forPolicies(policies: string[], options: { app?: boolean } = {}): Promise<PermissionSet> {
    const key = `${options.app ? 'app:' : ''}${[...policies].sort().join(',')}`;
    // Every request asks: a hit costs a lookup, no loader.
    const hit = this.sets.get(key);
    if (hit) return Promise.resolve(hit);
    return this.sets.load(key, () =>
      this.load(policies).then((loaded) =>
        options.app ? new PermissionSet([...loaded.rules, ...APP_ACCESS_RULES]) : loaded,
      ),
    );
  }

  /** The set of `policies` if it is cached now (no loading): undefined otherwise. */
  cachedForPolicies(policies: string[], options: { app?: boolean } = {}): PermissionSet | undefined {
    return this.sets.get(`${options.app ? 'app:' : ''}${[...policies].sort().join(',')}`);
  }

  /** Drops every set (tests; a running Strata clears through cache/invalidation.ts). */
  clear(): void {
    this.sets.clear();
  }

  private async load(policies: string[]): Promise<PermissionSet> {
    if (!policies.length) return new PermissionSet([]);
    const rows = await this.access.permissionRows(policies);
    return new PermissionSet(rows.map(decodeRule));
  }
}

function json(value: unknown): unknown {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value !== 'string') return value;
  return JSON.parse(value);
}

function decodeRule(row: Record<string, unknown>): PermissionRule {
  const fieldList =
    typeof row.fields === 'string'
      ? row.fields
          .split(',')
          .map((f) => f.trim())
          .filter(Boolean)
      : [];
  let permissions: PermissionRule['permissions'];
  let validation: FilterNode | null = null;
  let rawValidation: Record<string, unknown> | null = null;
  let presets: Record<string, unknown> | null = null;
  try {
    const rule = json(row.permissions);
    permissions =
      rule === null || (typeof rule === 'object' && Object.keys(rule as object).length === 0)
        ? null
        : parseFilter(rule);
  } catch {
    permissions = false;
  }
  try {
    const rule = json(row.validation);
    validation = rule === null ? null : parseFilter(rule);
    rawValidation = validation && typeof rule === 'object' ? (rule as Record<string, unknown>) : null;
  } catch {
    validation = null;
  }
  try {
    presets = json(row.presets) as Record<string, unknown> | null;
  } catch {
    presets = null;
  }
  return {
    policy: String(row.policy),
    collection: String(row.collection),
    action: String(row.action) as PermissionAction,
    fields: fieldList.includes('*') ? '*' : fieldList,
    permissions,
    validation,
    rawValidation,
    presets,
  };
}

/** Every string inside presets and validation rules (where `$CURRENT_USER.<path>` variables may hide). */
function variables(values: unknown[]): string[] {
  const found: string[] = [];
  const visit = (value: unknown): void => {
    if (typeof value === 'string') found.push(value);
    else if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object') Object.values(value).forEach(visit);
  };
  values.forEach(visit);
  return found;
}
