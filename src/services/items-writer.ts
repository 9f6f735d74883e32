/**
 * Item writes: parse (done by the route) → plan (pure; every check that needs no database) → hash values of `hash`
 * fields (argon2, off the event loop, before any lock is taken) → one transaction running the plan → re-read of the
 * written rows through the read engine with the request's query. A re-read the caller may not make answers 204.
 * Non-admins write under the rules of their policies (plan/write-access.ts, resolved here once per request). With
 * `options.system`, the service_* collections that have routes of their own are written the same way.
 */
import { randomUUID } from 'node:crypto';
import { hashPassword } from '../auth/passwords.js';
import type { Database, Executor } from '../db/connection.js';
import { atLine, ForbiddenError, InvalidPayloadError, RouteNotFoundError, ServiceError, throwAll } from '../errors/catalogue.js';
import type { ImportRecord } from '../io/import-records.js';
import type { Accountability } from '../permissions/accountability.js';
import type { AccessResolver } from '../permissions/access-resolver.js';
import type { PermissionSet } from '../permissions/permission-store.js';
import type { DeletePlan, Key, MutationPlan, RowWrite } from '../plan/mutation-plan.js';
import { planCreate, planDelete, planUpdate, writableCollection, type WriteContext } from '../plan/mutation-planner.js';
import type { WriteAccess, WriteAction } from '../plan/write-access.js';
import { lengthProblem } from '../plan/write-values.js';
import type { Query } from '../request/query.js';
import type { DeleteBody, Payload, UpdateBody } from '../request/write-body.js';
import type { SchemaOverview } from '../schema/types.js';
import { hasCompositeKey, keyFieldsOf, keyOfValues, parseKey } from '../plan/row-key.js';
import { compileFirstKey } from '../sql/write-compiler.js';
import { NO_MARKS, type ItemsService, type JsonRead, type OutputForm, type ReadOptions, type RowsRead, type StageMarks } from './items-service.js';
import { MutationExecutor } from './mutation-executor.js';
import type { SystemWrites } from './system-writes.js';

export interface ItemsWriterDeps {
  db: Database;
  schema: () => SchemaOverview;
  items: ItemsService;
  access: AccessResolver;
  maxBatchMutation: number;
  /** Checks and cache invalidation of system-collection writes (needed for `options.system`). */
  systemWrites?: SystemWrites;
}

export interface WriteOptions<R extends Reread = 'json'> {
  /** Opens the service_* collections that have routes of their own (users, roles, policies, ...). */
  system?: boolean;
  /** How the written items are read back: the database's JSON text (REST), or values (GraphQL's resolvers). */
  reread?: R;
  /** The JSON form of the values read back (see items-service.ts). */
  form?: OutputForm;
}

export type Reread = 'json' | 'rows';

/** Admits every collection and field at the sync check: the rules are checked (async) once they are loaded. */
const UNCHECKED: WriteAccess = { rules: () => null };

/** A write's answer: the written items as read back, or null when the caller may not read them (204 No Content). */
export type WriteResult<R extends Reread = 'json'> = (R extends 'rows' ? RowsRead : JsonRead) | null;

export class ItemsWriter {
  constructor(private readonly deps: ItemsWriterDeps) {}

  /**
   * FORBIDDEN unless `collection` can be written at all (exists, has a key, is not a service_* table). The
   * caller's rules are checked by `checkWritable` and by every write.
   */
  assertWritable(collection: string, accountability: Accountability, options: WriteOptions<Reread> = {}): void {
    writableCollection(collection, { ...this.baseContext(accountability, options), access: UNCHECKED });
  }

  /**
   * Whether the caller has a rule for `action` on a writable `collection`, from an already loaded permission set
   * (null for admins): for front ends that list what may be written (GraphQL mutations), without a database trip.
   */
  canWrite(collection: string, action: WriteAction, accountability: Accountability, permissions: PermissionSet | null, options: WriteOptions<Reread> = {}): boolean {
    try {
      writableCollection(collection, { ...this.baseContext(accountability, options), access: UNCHECKED });
    } catch {
      return false;
    }
    return accountability.admin || Boolean(permissions?.for(collection, action).length);
  }

  /** FORBIDDEN unless the caller may do `action` on `collection` (checked before the body is looked at). */
  async checkWritable(collection: string, action: WriteAction, accountability: Accountability, options: WriteOptions<Reread> = {}): Promise<void> {
    writableCollection(collection, await this.context(accountability, options), action);
  }

  isSingleton(collection: string): boolean {
    return this.deps.schema().collections[collection]?.singleton === true;
  }

  /** POST: one item (object) or many (array); answered with the created items as `query` reads them. */
  async create<R extends Reread = 'json'>(collection: string, items: Payload[], many: boolean, query: Query, accountability: Accountability, marks: StageMarks = NO_MARKS, options: WriteOptions<R> = {}): Promise<WriteResult<R>> {
    const ctx = await this.context(accountability, options);
    writableCollection(collection, ctx, 'create');
    if (this.isSingleton(collection)) throw new RouteNotFoundError(`/items/${collection}`);
    await this.checkSystemPayloads(collection, items, many, ctx);
    const plan = planCreate(collection, items, many, ctx);
    marks.mark('plan');
    await this.execute(plan, ctx);
    marks.mark('write');
    const keys = plan.rows.map((row) => row.key!);
    const body = many ? await this.readKeys(collection, keys, query, accountability, options) : await this.readKey(collection, keys[0]!, query, accountability, options);
    marks.mark('read');
    return body;
  }

  /**
   * Import: the records create items in batches of `batchSize` rows (one multi-row INSERT each), all inside one
   * transaction, through the same planner as POST (permissions, presets, validation, hashing, MAX_BATCH_MUTATION
   * counted over the whole import). A bad record fails the import with its line; nothing is written. Answers the
   * number of items created.
   */
  async importRecords(collection: string, records: AsyncIterable<ImportRecord>, batchSize: number, accountability: Accountability, onProgress?: (rows: number) => void): Promise<number> {
    const ctx = await this.context(accountability, {});
    writableCollection(collection, ctx, 'create');
    if (this.isSingleton(collection)) throw new InvalidPayloadError(`Can't import into the singleton "${collection}"`);
    let written = 0;
    await this.deps.db.transaction(async (tx) => {
      let batch: ImportRecord[] = [];
      const flush = async () => {
        const batchCtx = { ...ctx, maxBatchMutation: ctx.maxBatchMutation - written };
        written += await this.importBatch(tx, collection, batch, batchCtx);
        batch = [];
        onProgress?.(written);
      };
      for await (const record of records) {
        batch.push(record);
        if (batch.length >= batchSize) await flush();
      }
      if (batch.length) await flush();
    });
    return written;
  }

  /**
   * One batch inside a savepoint; on failure it is rolled back and its rows written one by one (each seeing the
   * ones before it), so that the first failing row names its line.
   */
  private async importBatch(tx: Executor, collection: string, batch: ImportRecord[], ctx: WriteContext): Promise<number> {
    const write = async (records: ImportRecord[]): Promise<number> => {
      const plan = planCreate(collection, records.map((r) => r.payload), true, ctx);
      await hashValues(plan.rows);
      await new MutationExecutor(tx, this.deps.db.dialect, ctx, plan.rowCount).writeRows(plan.rows);
      return plan.rowCount;
    };
    await tx.query('savepoint strata_import');
    try {
      const count = await write(batch);
      await tx.query('release savepoint strata_import');
      return count;
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      await tx.query('rollback to savepoint strata_import');
      if (batch.length > 1) {
        for (const record of batch) {
          try {
            await write([record]);
          } catch (rowError) {
            if (rowError instanceof ServiceError) throw atLine(rowError, record.line);
            throw rowError;
          }
        }
      }
      throw batch.length === 1 ? atLine(error, batch[0]!.line) : error;
    }
  }

  /** PATCH /items/{c}/{pk}. */
  async updateOne<R extends Reread = 'json'>(collection: string, key: string, payload: Payload, query: Query, accountability: Accountability, marks: StageMarks = NO_MARKS, options: WriteOptions<R> = {}): Promise<WriteResult<R>> {
    const ctx = await this.context(accountability, options);
    writableCollection(collection, ctx, 'update');
    if (this.isSingleton(collection)) throw new RouteNotFoundError(`/items/${collection}/${key}`);
    await this.checkSystemPayloads(collection, [payload], false, ctx);
    const plan = planUpdate(collection, [{ key, payload }], false, ctx);
    marks.mark('plan');
    await this.execute(plan, ctx);
    marks.mark('write');
    const body = await this.readKey(collection, plan.rows[0]!.key!, query, accountability, options);
    marks.mark('read');
    return body;
  }

  /** PATCH /items/{c}: an array of items with keys, `{keys, data}` or `{query, data}`. */
  async updateMany<R extends Reread = 'json'>(collection: string, body: UpdateBody, query: Query, accountability: Accountability, marks: StageMarks = NO_MARKS, options: WriteOptions<R> = {}): Promise<WriteResult<R>> {
    const ctx = await this.context(accountability, options);
    const target = writableCollection(collection, ctx, 'update');
    let plan: MutationPlan;
    if (body.kind === 'batch') {
      await this.checkSystemPayloads(collection, body.items, true, ctx);
      plan = planUpdate(collection, body.items.map((payload) => ({ key: keyOfValues(target, payload) ?? undefined, payload })), true, ctx);
    } else {
      await this.checkSystemPayloads(collection, [body.data], false, ctx);
      const keys = body.kind === 'keys' ? body.keys : await this.keysByQuery(collection, body.query, accountability, options);
      if (keys.length === 0) return this.readKeys(collection, [], query, accountability, options);
      plan = planUpdate(collection, keys.map((key) => ({ key, payload: body.data })), false, ctx);
    }
    marks.mark('plan');
    await this.execute(plan, ctx);
    marks.mark('write');
    const result = await this.readKeys(collection, plan.rows.map((row) => row.key!), query, accountability, options);
    marks.mark('read');
    return result;
  }

  /** PATCH /items/{singleton} (and /settings): updates its one row, or creates it. */
  async upsertSingleton<R extends Reread = 'json'>(collection: string, payload: Payload, query: Query, accountability: Accountability, marks: StageMarks = NO_MARKS, options: WriteOptions<R> = {}): Promise<WriteResult<R>> {
    const ctx = await this.context(accountability, options);
    const target = writableCollection(collection, ctx);
    const keyFields = keyFieldsOf(target);
    const { sql, params } = compileFirstKey(target.schema!.name, hasCompositeKey(target) ? keyFields : keyFields[0]!, { sql: this.deps.db.dialect.sql, write: this.deps.db.dialect.write });
    const [existing] = await this.deps.db.query(sql, params);
    const key = !existing ? null : hasCompositeKey(target) ? parseKey(target, Object.fromEntries(target.keyFields.map((name, i) => [name, existing[`key${i}`]]))) : existing.key;
    const plan = key !== null && key !== undefined ? planUpdate(collection, [{ key, payload }], false, ctx) : planCreate(collection, [payload], false, ctx);
    marks.mark('plan');
    await this.execute(plan, ctx);
    marks.mark('write');
    const singletonQuery = { ...query, meta: undefined };
    const body = await this.reread(
      options,
      (items, read) => items.readMany(collection, singletonQuery, accountability, NO_MARKS, { ...read, singleton: true }),
      (items, read) => items.rowsMany(collection, singletonQuery, accountability, NO_MARKS, { ...read, singleton: true }),
    );
    marks.mark('read');
    return body;
  }

  /** DELETE /items/{c}/{pk} and DELETE /items/{c} (array of keys, `{keys}` or `{query}`); always 204. */
  async delete(collection: string, body: DeleteBody, accountability: Accountability, marks: StageMarks = NO_MARKS, options: WriteOptions<Reread> = {}): Promise<void> {
    const ctx = await this.context(accountability, options);
    writableCollection(collection, ctx, 'delete');
    const keys = body.kind === 'keys' ? body.keys : await this.keysByQuery(collection, body.query, accountability, options);
    const plan: DeletePlan = planDelete(collection, keys, ctx);
    marks.mark('plan');
    const touched = new Set([plan.collection.collection]);
    await this.transaction(ctx, touched, (tx) => new MutationExecutor(tx, this.deps.db.dialect, ctx, plan.keys.length).deleteRows(plan));
    marks.mark('write');
  }

  private baseContext(accountability: Accountability, options: WriteOptions<Reread>): WriteContext {
    return { schema: this.deps.schema(), accountability, now: new Date(), uuid: randomUUID, maxBatchMutation: this.deps.maxBatchMutation, system: options.system };
  }

  /**
   * The write context; a non-admin's rules resolved for this request (variables such as $CURRENT_USER included),
   * once per request: the route's early check and the write share them.
   */
  private async context(accountability: Accountability, options: WriteOptions<Reread>): Promise<WriteContext> {
    const ctx = this.baseContext(accountability, options);
    if (accountability.admin) return ctx;
    return { ...ctx, access: await this.deps.access.write(ctx.schema, accountability, ctx.now) };
  }

  private async checkSystemPayloads(collection: string, payloads: Payload[], many: boolean, ctx: WriteContext): Promise<void> {
    if (ctx.system) await this.deps.systemWrites?.checkPayloads(collection, payloads, many);
  }

  private async execute(plan: MutationPlan, ctx: WriteContext): Promise<void> {
    await hashValues(plan.rows);
    await this.transaction(ctx, this.deps.systemWrites && ctx.system ? this.deps.systemWrites.touched(plan.rows) : new Set<string>(), (tx) => new MutationExecutor(tx, this.deps.db.dialect, ctx, plan.rowCount).writeRows(plan.rows));
  }

  /** One transaction; system writes keep an active admin and drop the caches they make stale once committed. */
  private async transaction(ctx: WriteContext, touched: Set<string>, work: (tx: Executor) => Promise<void>): Promise<void> {
    const system = ctx.system ? this.deps.systemWrites : undefined;
    if (!system) {
      await this.deps.db.transaction(work);
      return;
    }
    await this.deps.db.transaction((tx) => system.keepAdmin(tx, touched, ctx.accountability, () => work(tx)));
    await system.committed(touched);
  }

  /**
   * The keys of the items a query selects, read through the read engine (so the caller's read rules apply, and
   * the default limit: update and delete by query touch at most QUERY_LIMIT_DEFAULT items unless `limit` says more).
   */
  private async keysByQuery(collection: string, query: Query, accountability: Accountability, options: WriteOptions<Reread>): Promise<Key[]> {
    const target = this.deps.schema().collections[collection]!;
    const { data } = await this.deps.items.rowsMany(collection, { ...query, fields: [...target.keyFields], meta: undefined }, accountability, NO_MARKS, { system: options.system });
    const rows = (Array.isArray(data) ? data : data ? [data] : []) as Record<string, Key>[];
    return rows.map((row) => keyOfValues(target, row)).filter((key): key is Key => key !== null && key !== undefined);
  }

  private readKey<R extends Reread>(collection: string, key: Key, query: Query, accountability: Accountability, options: WriteOptions<R>): Promise<WriteResult<R>> {
    const keyQuery = { ...query, meta: undefined };
    return this.reread(
      options,
      (items, read) => items.readOne(collection, String(key), keyQuery, accountability, NO_MARKS, read),
      (items, read) => items.rowsOne(collection, String(key), keyQuery, accountability, NO_MARKS, read),
    );
  }

  /** The written rows, in the read engine's order (the collection's sort field, else the key). */
  private readKeys<R extends Reread>(collection: string, keys: Key[], query: Query, accountability: Accountability, options: WriteOptions<R>): Promise<WriteResult<R>> {
    return this.reread(
      options,
      (items, read) => items.readKeys(collection, keys, query, accountability, read),
      (items, read) => items.rowsKeys(collection, keys, query, accountability, read),
    );
  }

  /** The re-read in the form the caller asked for; one the caller is not allowed (FORBIDDEN) answers 204, as Directus does. */
  private async reread<R extends Reread>(
    options: WriteOptions<R>,
    json: (items: ItemsService, read: ReadOptions) => Promise<JsonRead>,
    rows: (items: ItemsService, read: ReadOptions) => Promise<RowsRead>,
  ): Promise<WriteResult<R>> {
    const read: ReadOptions = { system: options.system, form: options.form };
    try {
      return (await (options.reread === 'rows' ? rows(this.deps.items, read) : json(this.deps.items, read))) as WriteResult<R>;
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
