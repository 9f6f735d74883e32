/**
 * Item writes: parse (done by the route) → plan (pure; every check that needs no database) → hash values of `hash`
 * fields (argon2, off the event loop, before any lock is taken) → one transaction running the plan → re-read of the
 * written rows through the read engine with the request's query. A re-read the caller may not make answers 204.
 */
import { randomUUID } from 'node:crypto';
import { hashPassword } from '../auth/passwords.js';
import type { Database } from '../db/connection.js';
import { ForbiddenError, RouteNotFoundError, throwAll, type ServiceError } from '../errors/catalogue.js';
import type { Accountability } from '../permissions/accountability.js';
import type { DeletePlan, Key, MutationPlan, RowWrite } from '../plan/mutation-plan.js';
import { planCreate, planDelete, planUpdate, writableCollection, type WriteContext } from '../plan/mutation-planner.js';
import { lengthProblem } from '../plan/write-values.js';
import type { Query } from '../request/query.js';
import type { DeleteBody, Payload, UpdateBody } from '../request/write-body.js';
import type { SchemaOverview } from '../schema/types.js';
import { compileFirstKey } from '../sql/write-compiler.js';
import type { ItemsService, StageMarks } from './items-service.js';
import { MutationExecutor } from './mutation-executor.js';

const NO_MARKS: StageMarks = { mark: () => {} };
/** Keys per re-read statement: well inside every database's parameter limit. */
const REREAD_CHUNK = 10_000;

export interface ItemsWriterDeps {
  db: Database;
  schema: () => SchemaOverview;
  items: ItemsService;
  maxBatchMutation: number;
}

/** A write's answer: the response body, or null for 204 No Content. */
export type WriteResult = string | null;

export class ItemsWriter {
  constructor(private readonly deps: ItemsWriterDeps) {}

  /** FORBIDDEN unless the caller may write items of `collection` (checked before the body is looked at). */
  assertWritable(collection: string, accountability: Accountability): void {
    writableCollection(collection, this.context(accountability));
  }

  isSingleton(collection: string): boolean {
    return this.deps.schema().collections[collection]?.singleton === true;
  }

  /** POST: one item (object) or many (array); answered with the created items as `query` reads them. */
  async create(collection: string, items: Payload[], many: boolean, query: Query, accountability: Accountability, marks: StageMarks = NO_MARKS): Promise<WriteResult> {
    const ctx = this.context(accountability);
    writableCollection(collection, ctx);
    if (this.isSingleton(collection)) throw new RouteNotFoundError(`/items/${collection}`);
    const plan = planCreate(collection, items, many, ctx);
    marks.mark('plan');
    await this.execute(plan, ctx);
    marks.mark('write');
    const keys = plan.rows.map((row) => row.key!);
    const body = many ? await this.readKeys(collection, keys, query, accountability) : await this.readKey(collection, keys[0]!, query, accountability);
    marks.mark('read');
    return body;
  }

  /** PATCH /items/{c}/{pk}. */
  async updateOne(collection: string, key: string, payload: Payload, query: Query, accountability: Accountability, marks: StageMarks = NO_MARKS): Promise<WriteResult> {
    const ctx = this.context(accountability);
    writableCollection(collection, ctx);
    if (this.isSingleton(collection)) throw new RouteNotFoundError(`/items/${collection}/${key}`);
    const plan = planUpdate(collection, [{ key, payload }], false, ctx);
    marks.mark('plan');
    await this.execute(plan, ctx);
    marks.mark('write');
    const body = await this.readKey(collection, plan.rows[0]!.key!, query, accountability);
    marks.mark('read');
    return body;
  }

  /** PATCH /items/{c}: an array of items with keys, `{keys, data}` or `{query, data}`. */
  async updateMany(collection: string, body: UpdateBody, query: Query, accountability: Accountability, marks: StageMarks = NO_MARKS): Promise<WriteResult> {
    const ctx = this.context(accountability);
    const target = writableCollection(collection, ctx);
    let plan: MutationPlan;
    if (body.kind === 'batch') {
      plan = planUpdate(collection, body.items.map((payload) => ({ key: payload[target.primary!], payload })), true, ctx);
    } else {
      const keys = body.kind === 'keys' ? body.keys : await this.keysByQuery(collection, body.query, accountability);
      if (keys.length === 0) return '{"data":[]}';
      plan = planUpdate(collection, keys.map((key) => ({ key, payload: body.data })), false, ctx);
    }
    marks.mark('plan');
    await this.execute(plan, ctx);
    marks.mark('write');
    const result = await this.readKeys(collection, plan.rows.map((row) => row.key!), query, accountability);
    marks.mark('read');
    return result;
  }

  /** PATCH /items/{singleton}: updates its one row, or creates it. */
  async upsertSingleton(collection: string, payload: Payload, query: Query, accountability: Accountability, marks: StageMarks = NO_MARKS): Promise<WriteResult> {
    const ctx = this.context(accountability);
    const target = writableCollection(collection, ctx);
    const { sql, params } = compileFirstKey(target.schema!.name, target.fields[target.primary!]!, { sql: this.deps.db.dialect.sql, write: this.deps.db.dialect.write });
    const [existing] = await this.deps.db.query(sql, params);
    const plan =
      existing && existing.key !== null && existing.key !== undefined
        ? planUpdate(collection, [{ key: existing.key, payload }], false, ctx)
        : planCreate(collection, [payload], false, ctx);
    marks.mark('plan');
    await this.execute(plan, ctx);
    marks.mark('write');
    const body = await this.reread(() => this.deps.items.readMany(collection, { ...query, meta: undefined }, accountability));
    marks.mark('read');
    return body;
  }

  /** DELETE /items/{c}/{pk} and DELETE /items/{c} (array of keys, `{keys}` or `{query}`); always 204. */
  async delete(collection: string, body: DeleteBody, accountability: Accountability, marks: StageMarks = NO_MARKS): Promise<void> {
    const ctx = this.context(accountability);
    writableCollection(collection, ctx);
    const keys = body.kind === 'keys' ? body.keys : await this.keysByQuery(collection, body.query, accountability);
    const plan: DeletePlan = planDelete(collection, keys, ctx);
    marks.mark('plan');
    await this.deps.db.transaction((tx) => new MutationExecutor(tx, this.deps.db.dialect, ctx, plan.keys.length).deleteRows(plan));
    marks.mark('write');
  }

  private context(accountability: Accountability): WriteContext {
    return { schema: this.deps.schema(), accountability, now: new Date(), uuid: randomUUID, maxBatchMutation: this.deps.maxBatchMutation };
  }

  private async execute(plan: MutationPlan, ctx: WriteContext): Promise<void> {
    await hashValues(plan.rows);
    await this.deps.db.transaction((tx) => new MutationExecutor(tx, this.deps.db.dialect, ctx, plan.rowCount).writeRows(plan.rows));
  }

  /**
   * The keys of the items a query selects, read through the read engine (so the caller's read rules apply, and
   * the default limit: update and delete by query touch at most QUERY_LIMIT_DEFAULT items unless `limit` says more).
   */
  private async keysByQuery(collection: string, query: Query, accountability: Accountability): Promise<Key[]> {
    const primary = this.deps.schema().collections[collection]!.primary!;
    const body = await this.deps.items.readMany(collection, { ...query, fields: [primary], meta: undefined }, accountability);
    const data = (JSON.parse(body) as { data: Record<string, Key>[] | Record<string, Key> | null }).data;
    const rows = Array.isArray(data) ? data : data ? [data] : [];
    return rows.map((row) => row[primary]!).filter((key) => key !== null && key !== undefined);
  }

  private readKey(collection: string, key: Key, query: Query, accountability: Accountability): Promise<WriteResult> {
    return this.reread(() => this.deps.items.readOne(collection, String(key), { ...query, meta: undefined }, accountability));
  }

  /** The written rows, in the read engine's order (the collection's sort field, else the key), in bounded chunks. */
  private async readKeys(collection: string, keys: Key[], query: Query, accountability: Accountability): Promise<WriteResult> {
    if (keys.length === 0) return '{"data":[]}';
    const read = (chunk: Key[]) => this.deps.items.readMany(collection, { ...query, meta: undefined, keys: chunk, limit: query.limit ?? chunk.length }, accountability);
    if (keys.length <= REREAD_CHUNK || query.limit !== undefined) return this.reread(() => read(keys));
    const sorted = keys.every((key) => typeof key === 'number') ? [...keys].sort((a, b) => (a as number) - (b as number)) : keys;
    return this.reread(async () => {
      const parts: string[] = [];
      for (let i = 0; i < sorted.length; i += REREAD_CHUNK) {
        // Each body is exactly `{"data":[...]}`: the arrays are joined without parsing them.
        const array = (await read(sorted.slice(i, i + REREAD_CHUNK))).slice('{"data":['.length, -2);
        if (array) parts.push(array);
      }
      return `{"data":[${parts.join(',')}]}`;
    });
  }

  /** A re-read the caller is not allowed (FORBIDDEN) answers 204, as Directus does. */
  private async reread(read: () => Promise<string>): Promise<WriteResult> {
    try {
      return await read();
    } catch (error) {
      if (error instanceof ForbiddenError) return null;
      throw error;
    }
  }
}

/** Values of `hash` fields → argon2 hashes (on the libuv pool); a hash longer than its column fails like any value. */
async function hashValues(rows: RowWrite[]): Promise<void> {
  const pending: Promise<void>[] = [];
  const errors: ServiceError[] = [];
  const visit = (row: RowWrite) => {
    for (const name of row.hashFields) {
      pending.push(
        hashPassword(String(row.values[name])).then((hashed) => {
          row.values[name] = hashed;
          const tooLong = lengthProblem(row.collection, row.collection.fields[name]!, hashed);
          if (tooLong) errors.push(tooLong);
        }),
      );
    }
    row.parents.forEach((parent) => visit(parent.row));
    row.children.forEach((set) => [...set.rows, ...set.updates].forEach(visit));
  };
  rows.forEach(visit);
  await Promise.all(pending);
  throwAll(errors);
}
