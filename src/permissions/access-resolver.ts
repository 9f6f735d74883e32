/**
 * The caller's access for one request: the permission set of their policies (PermissionStore), the values of the
 * `$CURRENT_USER.<path>` / `$CURRENT_ROLE.<path>` variables its rules or the query name (one read each), and from
 * them the read policy (plan/policy-access.ts) or the write rules (plan/write-access.ts). The read engine, the writer
 * and GraphQL all ask here; admins get FULL_ACCESS and no write rules without any lookup.
 */
import type { Database } from '../db/connection.js';
import { FULL_ACCESS, type AccessPolicy } from '../plan/access.js';
import { policyAccess } from '../plan/policy-access.js';
import { planRead } from '../plan/read-planner.js';
import { policyWriteAccess, type WriteAccess } from '../plan/write-access.js';
import type { Query } from '../request/query.js';
import { dynamicPaths } from '../request/parse-filter.js';
import type { SchemaOverview } from '../schema/types.js';
import { compileRead } from '../sql/read-compiler.js';
import type { Accountability } from './accountability.js';
import type { PermissionSet, PermissionStore } from './permission-store.js';

export interface ReadAccess {
  access: AccessPolicy;
  /** Values of the variable paths, loaded before planning. */
  dynamic: Map<string, unknown>;
  /** null for admins. */
  permissions: PermissionSet | null;
}

export interface AccessResolverDeps {
  db: Database;
  permissions: PermissionStore;
}

export class AccessResolver {
  /** Per request (its accountability object): the resolved write rules, shared by the route's check and the write. */
  private readonly writes = new WeakMap<
    Accountability,
    { schema: SchemaOverview; loading: Promise<WriteAccess | undefined> }
  >();

  constructor(private readonly deps: AccessResolverDeps) {}

  /** The permission set of the caller's policies (cached by the store); null for admins. */
  permissionsOf(accountability: Accountability): Promise<PermissionSet | null> {
    return accountability.admin
      ? Promise.resolve(null)
      : this.deps.permissions.forPolicies(accountability.policies, { app: accountability.app });
  }

  /** As `permissionsOf` when the set is cached (null for admins); undefined when it must be loaded. */
  permissionsNow(accountability: Accountability): PermissionSet | null | undefined {
    return accountability.admin
      ? null
      : this.deps.permissions.cachedForPolicies(accountability.policies, { app: accountability.app });
  }

  /** What the caller may read, with the variable values the rules and `query` need. */
  async read(schema: SchemaOverview, accountability: Accountability, now: Date, query?: Query): Promise<ReadAccess> {
    return this.readWith(await this.permissionsOf(accountability), schema, accountability, now, query);
  }

  /** As `read`, from an already loaded permission set. */
  async readWith(
    permissions: PermissionSet | null,
    schema: SchemaOverview,
    accountability: Accountability,
    now: Date,
    query?: Query,
  ): Promise<ReadAccess> {
    const paths = new Set([...(permissions?.dynamicPaths ?? []), ...queryDynamicPaths(query)]);
    const dynamic = paths.size
      ? await this.dynamicValues(schema, accountability, [...paths], now)
      : new Map<string, unknown>();
    if (!permissions) return { access: FULL_ACCESS, dynamic, permissions };
    return { access: policyAccess(permissions, { schema, accountability, now, dynamic }), dynamic, permissions };
  }

  /** The caller's write rules (undefined for admins), resolved once per request and schema. */
  write(schema: SchemaOverview, accountability: Accountability, now: Date): Promise<WriteAccess | undefined> {
    if (accountability.admin) return Promise.resolve(undefined);
    let entry = this.writes.get(accountability);
    if (!entry || entry.schema !== schema) {
      const loading = this.read(schema, accountability, now).then(({ permissions, dynamic }) =>
        permissions ? policyWriteAccess(permissions, { schema, accountability, now, dynamic }) : undefined,
      );
      entry = { schema, loading };
      this.writes.set(accountability, entry);
    }
    return entry.loading;
  }

  private async dynamicValues(
    schema: SchemaOverview,
    accountability: Accountability,
    paths: string[],
    now: Date,
  ): Promise<Map<string, unknown>> {
    const values = new Map<string, unknown>();
    const sources = [
      { prefix: '$CURRENT_USER.', collection: 'service_users', key: accountability.user },
      { prefix: '$CURRENT_ROLE.', collection: 'service_roles', key: accountability.role },
    ];
    for (const { prefix, collection, key } of sources) {
      const wanted = paths.filter((p) => p.startsWith(prefix)).map((p) => p.slice(prefix.length));
      if (!wanted.length || !key) continue;
      let row: unknown = null;
      try {
        const plan = planRead(
          collection,
          { fields: wanted, keys: [key] },
          { schema, access: FULL_ACCESS, accountability, queryLimitDefault: 1, now, single: true, system: true },
        );
        const { sql, params } = compileRead(plan, this.deps.db.dialect.sql);
        const [result] = await this.deps.db.query(sql, params);
        // The database's JSON text of the row (a driver may hand it over already decoded).
        row = typeof result?.data === 'string' ? JSON.parse(result.data) : (result?.data ?? null);
      } catch {
        // A path that does not exist resolves to null, so a rule using it matches nothing.
        row = null;
      }
      for (const path of wanted) values.set(prefix + path, walk(row, path.split('.')));
    }
    return values;
  }
}

/** A value at a path of a read row; through lists, the values of every element. */
function walk(value: unknown, path: string[]): unknown {
  if (!path.length || value === null || value === undefined) return value ?? null;
  if (Array.isArray(value)) return value.flatMap((item) => [walk(item, path)].flat());
  if (typeof value !== 'object') return null;
  return walk((value as Record<string, unknown>)[path[0]!], path.slice(1));
}

function queryDynamicPaths(query: Query | undefined): string[] {
  if (!query) return [];
  const deep = (levels: Query['deep']): string[] =>
    Object.values(levels ?? {}).flatMap((level) => [...dynamicPaths(level.filter), ...deep(level.deep)]);
  return [...dynamicPaths(query.filter), ...deep(query.deep)];
}
