/**
 * Item reads: plan → one SQL statement → the database's JSON text of the answer, handed over as it is (the front
 * end wraps it: REST in `{"data":...,"meta":...}`, GraphQL's pass-through in its response). Internal callers that
 * work with values (GraphQL resolvers, key lookups, the CLI) take the `rows` variants, which decode that text once
 * here. The caller's access comes from permissions/access-resolver.ts.
 */
import type { Database } from '../../db/connection.js';
import { ForbiddenError } from '../../errors/catalogue.js';
import type { Accountability } from '../../permissions/accountability.js';
import type { AccessResolver } from '../../permissions/access-resolver.js';
import type { Key } from '../../plan/mutation-plan.js';
import type { PlannedOutput, ReadPlan } from '../../plan/read-plan.js';
import { planRead } from '../../plan/read-planner.js';
import { readReach } from '../../plan/read-reach.js';
import type { Query } from '../../request/query.js';
import type { SchemaOverview } from '../../schema/types.js';
import { compileRead } from '../../sql/read-compiler.js';
import type { EventEmitter } from '../events/event-emitter.js';
import { isQueryEvent, itemsEventNames } from '../events/event-names.js';
import { announceRead, filterReadQuery } from './read-events.js';
import { StatementCache, type CachedRead } from './statement-cache.js';

/** Receives the end of each stage (plan, sql, db, respond) for Server-Timing. */
export interface StageMarks {
  mark(stage: string): void;
  /** The collections a read read from (a cached answer's tags: http/cached-read.ts), when the caller keeps them. */
  reached?(collections: readonly string[]): void;
  /** The answer holds what no tag covers (a mutation, an error, a content version): it must not be kept. */
  uncacheable?(): void;
}

export const NO_MARKS: StageMarks = { mark: () => {} };

/**
 * A front end's JSON form of the values (GraphQL's scalars: graphql/graphql-values.ts), applied to the planned
 * outputs so that the database writes them that way; `name` tells the forms apart in the statement cache.
 */
export interface OutputForm {
  name: string;
  outputs(outputs: PlannedOutput[]): PlannedOutput[];
}

export interface ReadOptions {
  system?: boolean;
  singleton?: boolean;
  /** Values in this JSON form instead of REST's. */
  form?: OutputForm;
}

/** A read's answer: `json` is the database's JSON text of the data (a list, or one object), untouched. */
export interface JsonRead {
  json: string;
  totalCount?: number;
  filterCount?: number;
}

/** The same answer as values, for internal callers. */
export interface RowsRead {
  data: unknown;
  totalCount?: number;
  filterCount?: number;
}

export interface ItemsServiceDeps {
  db: Database;
  schema: () => SchemaOverview;
  access: AccessResolver;
  queryLimitDefault: number;
  /** Read hook events (read-events.ts). */
  events?: EventEmitter;
}

/** Compiled reads kept by shape (see statement-cache.ts). */
const STATEMENT_CACHE_SIZE = 1000;
/** Keys per statement when reading many keys back: well inside every database's parameter limit. */
const KEYS_PER_READ = 10_000;

export class ItemsService {
  private readonly statements: StatementCache;

  constructor(private readonly deps: ItemsServiceDeps) {
    this.statements = new StatementCache(STATEMENT_CACHE_SIZE, deps.db.dialect.sql.literalLimits);
  }

  /**
   * The items `query` selects (`[...]`); for a singleton collection its object. `options.system` opens the
   * service_* tables (their own routes use it); `options.singleton` reads one object without a key (/settings).
   */
  async readMany(
    collection: string,
    query: Query,
    accountability: Accountability,
    marks: StageMarks = NO_MARKS,
    options: ReadOptions = {},
  ): Promise<JsonRead> {
    const schema = this.deps.schema();
    const { events, db } = this.deps;
    query = await filterReadQuery(events, collection, query, accountability, schema, db);
    const singleton = (options.singleton || schema.collections[collection]?.singleton === true) && !query.keys;
    const permissions = await this.deps.access.permissionsOf(accountability);
    const lookup = this.statements.find(
      schema.version,
      collection,
      query,
      accountability,
      permissions,
      `${singleton}:${options.system ?? false}:${options.form?.name ?? ''}`,
    );
    let read = lookup.read;
    if (read) {
      marks.mark('plan');
      marks.mark('sql');
    } else {
      const now = new Date();
      const { access, dynamic } = await this.deps.access.readWith(permissions, schema, accountability, now, query);
      const compile = (q: Query, stages: StageMarks): CachedRead => {
        const plan = withForm(
          planRead(collection, q, {
            schema,
            access,
            dynamic,
            accountability,
            queryLimitDefault: this.deps.queryLimitDefault,
            now,
            single: singleton,
            system: options.system,
          }),
          options.form,
        );
        stages.mark('plan');
        const { sql, params } = compileRead(plan, this.deps.db.dialect.sql);
        return {
          sql,
          params,
          primary: plan.collection.primary,
          totalCount: plan.meta.totalCount,
          filterCount: plan.meta.filterCount,
          reach: withDynamic(readReach(plan), dynamic),
        };
      };
      read = compile(query, marks);
      // Only reads planned from nothing but their key (no dynamic values) are kept.
      if (dynamic.size === 0) this.statements.remember(lookup, read, (other) => compile(other, NO_MARKS));
      marks.mark('sql');
    }
    marks.reached?.(read.reach);
    const [row] = await this.deps.db.query(read.sql, read.params, read.name);
    marks.mark('db');
    let json = row?.data as string | null | undefined;
    if (singleton && (json === null || json === undefined)) json = JSON.stringify({ [read.primary ?? 'id']: null });
    const result: JsonRead = { json: json ?? '[]' };
    if (read.totalCount) result.totalCount = Number(row?.total_count ?? 0);
    if (read.filterCount) result.filterCount = Number(row?.filter_count ?? 0);
    marks.mark('respond');
    announceRead(events, collection, query, result.json, accountability, schema, db);
    return result;
  }

  /** One item (`{...}`); FORBIDDEN when the key does not exist or cannot be a key (existence is never revealed). */
  async readOne(
    collection: string,
    key: string,
    query: Query,
    accountability: Accountability,
    marks: StageMarks = NO_MARKS,
    options: ReadOptions = {},
  ): Promise<JsonRead> {
    const schema = this.deps.schema();
    const { events, db } = this.deps;
    query = await filterReadQuery(events, collection, query, accountability, schema, db);
    const now = new Date();
    const { access, dynamic } = await this.deps.access.read(schema, accountability, now, query);
    const plan = withForm(
      planRead(
        collection,
        { ...query, keys: [key], meta: undefined },
        {
          schema,
          access,
          dynamic,
          accountability,
          queryLimitDefault: this.deps.queryLimitDefault,
          now,
          single: true,
          system: options.system,
        },
      ),
      options.form,
    );
    marks.mark('plan');
    if (plan.filter?.kind === 'constant' && !plan.filter.value) throw new ForbiddenError();
    const { sql, params } = compileRead(plan, this.deps.db.dialect.sql);
    marks.mark('sql');
    marks.reached?.(withDynamic(readReach(plan), dynamic));
    const [row] = await this.deps.db.query(sql, params);
    marks.mark('db');
    const json = row?.data as string | null | undefined;
    if (json === null || json === undefined) throw new ForbiddenError();
    marks.mark('respond');
    announceRead(events, collection, query, json, accountability, schema, db);
    return { json };
  }

  /**
   * The items of `keys` as `query` reads them, in the read engine's order (the collection's sort field, else the
   * key); many keys are read in bounded chunks whose lists are joined here.
   */
  async readKeys(
    collection: string,
    keys: Key[],
    query: Query,
    accountability: Accountability,
    options: ReadOptions = {},
  ): Promise<JsonRead> {
    if (keys.length === 0) return { json: '[]' };
    const read = (chunk: Key[]) =>
      this.readMany(
        collection,
        { ...query, meta: undefined, keys: chunk, limit: query.limit ?? chunk.length },
        accountability,
        NO_MARKS,
        options,
      );
    if (keys.length <= KEYS_PER_READ || query.limit !== undefined) return read(keys);
    const sorted = keys.every((key) => typeof key === 'number')
      ? [...keys].sort((a, b) => (a as number) - (b as number))
      : keys;
    const parts: string[] = [];
    for (let i = 0; i < sorted.length; i += KEYS_PER_READ) {
      // The database answers each chunk with one JSON array: their elements are joined without decoding them.
      const list = (await read(sorted.slice(i, i + KEYS_PER_READ))).json.slice(1, -1);
      if (list) parts.push(list);
    }
    return { json: `[${parts.join(',')}]` };
  }

  /**
   * Whether `accountability` may read `query` of `collection`: the read is planned, not run. Throws what the read
   * would (FORBIDDEN, INVALID_QUERY); realtime checks a subscription so when its subscriber's rights change.
   */
  async checkRead(
    collection: string,
    query: Query,
    accountability: Accountability,
    options: ReadOptions = {},
  ): Promise<void> {
    const schema = this.deps.schema();
    const now = new Date();
    const { access, dynamic } = await this.deps.access.read(schema, accountability, now, query);
    planRead(collection, query, {
      schema,
      access,
      dynamic,
      accountability,
      queryLimitDefault: this.deps.queryLimitDefault,
      now,
      single: false,
      system: options.system,
    });
  }

  /**
   * Whether a registered `query` filter may change reads of `collection` (null: of any collection), so that their
   * answers depend on the hook and are not kept in the response cache.
   */
  hasQueryHooks(collection: string | null): boolean {
    const events = this.deps.events;
    if (!events?.hasAnyFilter()) return false;
    if (collection === null) return events.hasAnyFilter(isQueryEvent);
    return events.hasFilter(itemsEventNames(collection, 'query'));
  }

  /** `readMany` as values. */
  async rowsMany(
    collection: string,
    query: Query,
    accountability: Accountability,
    marks: StageMarks = NO_MARKS,
    options: ReadOptions = {},
  ): Promise<RowsRead> {
    return rows(await this.readMany(collection, query, accountability, marks, options));
  }

  /** `readOne` as values. */
  async rowsOne(
    collection: string,
    key: string,
    query: Query,
    accountability: Accountability,
    marks: StageMarks = NO_MARKS,
    options: ReadOptions = {},
  ): Promise<RowsRead> {
    return rows(await this.readOne(collection, key, query, accountability, marks, options));
  }

  /** `readKeys` as values. */
  async rowsKeys(
    collection: string,
    keys: Key[],
    query: Query,
    accountability: Accountability,
    options: ReadOptions = {},
  ): Promise<RowsRead> {
    return rows(await this.readKeys(collection, keys, query, accountability, options));
  }
}

function withForm(plan: ReadPlan, form: OutputForm | undefined): ReadPlan {
  return form && plan.outputs.length ? { ...plan, outputs: form.outputs(plan.outputs) } : plan;
}

/** The database's JSON text → values: the one place a read's answer is decoded. */
function rows(read: JsonRead): RowsRead {
  const out: RowsRead = { data: JSON.parse(read.json) as unknown };
  if (read.totalCount !== undefined) out.totalCount = read.totalCount;
  if (read.filterCount !== undefined) out.filterCount = read.filterCount;
  return out;
}

/** The users' and roles' rows a rule's `$CURRENT_USER.<path>` / `$CURRENT_ROLE.<path>` values were read from. */
function withDynamic(reach: string[], dynamic: Map<string, unknown>): string[] {
  return dynamic.size ? [...reach, 'service_users', 'service_roles'] : reach;
}
