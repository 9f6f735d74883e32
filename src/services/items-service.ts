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
import type { PermissionStore } from '../permissions/permission-store.js';
import type { Query } from '../request/query.js';
import type { SchemaOverview } from '../schema/types.js';
import { compileRead } from '../sql/read-compiler.js';

/** Receives the end of each stage (plan, sql, db, respond) for Server-Timing. */
export interface StageMarks {
  mark(stage: string): void;
}

const NO_MARKS: StageMarks = { mark: () => {} };

export interface ItemsServiceDeps {
  db: Database;
  schema: () => SchemaOverview;
  permissions: PermissionStore;
  queryLimitDefault: number;
}

export class ItemsService {
  constructor(private readonly deps: ItemsServiceDeps) {}

  /** `{"data":[...],"meta":{...}}`; for a singleton collection `{"data":{...}}`. */
  async readMany(collection: string, query: Query, accountability: Accountability, marks: StageMarks = NO_MARKS): Promise<string> {
    const schema = this.deps.schema();
    const singleton = schema.collections[collection]?.singleton === true && !query.keys;
    const now = new Date();
    const access = await this.access(schema, accountability, now);
    const plan = planRead(collection, query, { schema, access, accountability, queryLimitDefault: this.deps.queryLimitDefault, now, single: singleton });
    marks.mark('plan');
    const { sql, params } = compileRead(plan, this.deps.db.dialect.sql);
    marks.mark('sql');
    const [row] = await this.deps.db.query(sql, params);
    marks.mark('db');
    let data = row?.data as string | null | undefined;
    if (singleton && (data === null || data === undefined)) data = JSON.stringify({ [plan.collection.primary ?? 'id']: null });
    const meta: string[] = [];
    if (plan.meta.totalCount) meta.push(`"total_count":${Number(row?.total_count ?? 0)}`);
    if (plan.meta.filterCount) meta.push(`"filter_count":${Number(row?.filter_count ?? 0)}`);
    const body = `{"data":${data ?? '[]'}${meta.length ? `,"meta":{${meta.join(',')}}` : ''}}`;
    marks.mark('respond');
    return body;
  }

  /** `{"data":{...}}`; FORBIDDEN when the key does not exist or cannot be a key (existence is never revealed). */
  async readOne(collection: string, key: string, query: Query, accountability: Accountability, marks: StageMarks = NO_MARKS): Promise<string> {
    const schema = this.deps.schema();
    const now = new Date();
    const plan = planRead(collection, { ...query, keys: [key], meta: undefined }, {
      schema,
      access: await this.access(schema, accountability, now),
      accountability,
      queryLimitDefault: this.deps.queryLimitDefault,
      now,
      single: true,
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

  /** Admins read everything; everyone else what the rules of their policies grant (loaded once per policy set). */
  async access(schema: SchemaOverview, accountability: Accountability, now: Date): Promise<AccessPolicy> {
    if (accountability.admin) return FULL_ACCESS;
    const permissions = await this.deps.permissions.forPolicies(accountability.policies);
    return policyAccess(permissions, { schema, accountability, now });
  }
}
