/**
 * Item reads: plan → one SQL statement → the response body, assembled around the database's JSON text without
 * parsing it again.
 */
import type { Database } from '../db/connection.js';
import { ForbiddenError } from '../errors/catalogue.js';
import type { Accountability } from '../permissions/accountability.js';
import { FULL_ACCESS, type AccessPolicy } from '../plan/access.js';
import { policyAccess } from '../plan/policy-access.js';
import { planRead } from '../plan/read-planner.js';
import type { PermissionSet, PermissionStore } from '../permissions/permission-store.js';
import type { Query } from '../request/query.js';
import { dynamicPaths } from '../request/parse-filter.js';
import type { SchemaOverview } from '../schema/types.js';
import { compileRead } from '../sql/read-compiler.js';
import { StatementCache, type CachedRead } from './statement-cache.js';

/** Receives the end of each stage (plan, sql, db, respond) for Server-Timing. */
export interface StageMarks {
  mark(stage: string): void;
}

const NO_MARKS: StageMarks = { mark: () => {} };

export interface ReadOptions {
  system?: boolean;
  singleton?: boolean;
  /** The JSON form of the values (GraphQL's, for responses passed through as text). */
  wire?: 'rest' | 'graphql';
}

export interface ItemsServiceDeps {
  db: Database;
  schema: () => SchemaOverview;
  permissions: PermissionStore;
  queryLimitDefault: number;
}

/** Compiled reads kept by shape (see statement-cache.ts). */
const STATEMENT_CACHE_SIZE = 1000;

export class ItemsService {
  private readonly statements = new StatementCache(STATEMENT_CACHE_SIZE);

  constructor(private readonly deps: ItemsServiceDeps) {}

  /**
   * `{"data":[...],"meta":{...}}`; for a singleton collection `{"data":{...}}`. `options.system` opens the service_*
   * tables (their own routes use it); `options.singleton` reads one object without a key (/settings).
   */
  async readMany(collection: string, query: Query, accountability: Accountability, marks: StageMarks = NO_MARKS, options: ReadOptions = {}): Promise<string> {
    const schema = this.deps.schema();
    const singleton = (options.singleton || schema.collections[collection]?.singleton === true) && !query.keys;
    const permissions = accountability.admin ? null : await this.deps.permissions.forPolicies(accountability.policies, { app: accountability.app });
    const lookup = this.statements.find(schema.version, collection, query, accountability, permissions, `${singleton}:${options.system ?? false}:${options.wire ?? 'rest'}`);
    let read = lookup.read;
    if (read) {
      marks.mark('plan');
      marks.mark('sql');
    } else {
      const now = new Date();
      const { access, dynamic } = await this.accessFor(permissions, schema, accountability, now, query);
      const compile = (q: Query, stages: StageMarks): CachedRead => {
        const plan = planRead(collection, q, { schema, access, dynamic, accountability, queryLimitDefault: this.deps.queryLimitDefault, now, single: singleton, system: options.system, wire: options.wire });
        stages.mark('plan');
        const { sql, params } = compileRead(plan, this.deps.db.dialect.sql);
        return { sql, params, primary: plan.collection.primary, totalCount: plan.meta.totalCount, filterCount: plan.meta.filterCount };
      };
      read = compile(query, marks);
      // Only reads planned from nothing but their key (no dynamic values) are kept.
      if (dynamic.size === 0) this.statements.remember(lookup, read, (other) => compile(other, NO_MARKS));
      marks.mark('sql');
    }
    const [row] = await this.deps.db.query(read.sql, read.params, read.name);
    marks.mark('db');
    let data = row?.data as string | null | undefined;
    if (singleton && (data === null || data === undefined)) data = JSON.stringify({ [read.primary ?? 'id']: null });
    const meta: string[] = [];
    if (read.totalCount) meta.push(`"total_count":${Number(row?.total_count ?? 0)}`);
    if (read.filterCount) meta.push(`"filter_count":${Number(row?.filter_count ?? 0)}`);
    const body = `{"data":${data ?? '[]'}${meta.length ? `,"meta":{${meta.join(',')}}` : ''}}`;
    marks.mark('respond');
    return body;
  }

  /** `{"data":{...}}`; FORBIDDEN when the key does not exist or cannot be a key (existence is never revealed). */
  async readOne(collection: string, key: string, query: Query, accountability: Accountability, marks: StageMarks = NO_MARKS, options: ReadOptions = {}): Promise<string> {
    const schema = this.deps.schema();
    const now = new Date();
    const { access, dynamic } = await this.access(schema, accountability, now, query);
    const plan = planRead(collection, { ...query, keys: [key], meta: undefined }, {
      schema,
      access,
      dynamic,
      accountability,
      queryLimitDefault: this.deps.queryLimitDefault,
      now,
      single: true,
      system: options.system,
      wire: options.wire,
    });
    marks.mark('plan');
    if (plan.filter?.kind === 'constant' && !plan.filter.value) throw new ForbiddenError();
    const { sql, params } = compileRead(plan, this.deps.db.dialect.sql);
    marks.mark('sql');
    const [row] = await this.deps.db.query(sql, params);
    marks.mark('db');
    const data = row?.data as string | null | undefined;
    if (data === null || data === undefined) throw new ForbiddenError();
    const body = `{"data":${data}}`;
    marks.mark('respond');
    return body;
  }

  /**
   * Admins read everything; everyone else what the rules of their policies grant (loaded once per policy set).
   * The values of `$CURRENT_USER.<path>` variables in the rules or the query are loaded first, in one read each.
   */
  async access(
    schema: SchemaOverview,
    accountability: Accountability,
    now: Date,
    query?: Query,
  ): Promise<{ access: AccessPolicy; dynamic: Map<string, unknown>; permissions: PermissionSet | null }> {
    const permissions = accountability.admin ? null : await this.deps.permissions.forPolicies(accountability.policies, { app: accountability.app });
    return this.accessFor(permissions, schema, accountability, now, query);
  }

  private async accessFor(
    permissions: PermissionSet | null,
    schema: SchemaOverview,
    accountability: Accountability,
    now: Date,
    query?: Query,
  ): Promise<{ access: AccessPolicy; dynamic: Map<string, unknown>; permissions: PermissionSet | null }> {
    const paths = new Set([...(permissions?.dynamicPaths ?? []), ...queryDynamicPaths(query)]);
    const dynamic = paths.size ? await this.dynamicValues(schema, accountability, [...paths], now) : new Map<string, unknown>();
    if (!permissions) return { access: FULL_ACCESS, dynamic, permissions };
    return { access: policyAccess(permissions, { schema, accountability, now, dynamic }), dynamic, permissions };
  }

  private async dynamicValues(schema: SchemaOverview, accountability: Accountability, paths: string[], now: Date): Promise<Map<string, unknown>> {
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
        const plan = planRead(collection, { fields: wanted, keys: [key] }, { schema, access: FULL_ACCESS, accountability, queryLimitDefault: 1, now, single: true, system: true });
        const { sql, params } = compileRead(plan, this.deps.db.dialect.sql);
        const [result] = await this.deps.db.query(sql, params);
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
  const deep = (levels: Query['deep']): string[] => Object.values(levels ?? {}).flatMap((level) => [...dynamicPaths(level.filter), ...deep(level.deep)]);
  return [...dynamicPaths(query.filter), ...deep(query.deep)];
}
