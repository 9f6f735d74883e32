/**
 * Item writes, a one-way pipeline like reads: `open` (the collection writable, the caller's rule for the action — the
 * one check, before the route looks at the body) → parse (the route) → draft plan (pure; every check that needs no
 * database) → argon2 hashes of `hash` values (off the event loop, before any connection is held) → one transaction:
 * the lookup stage (engine/write/write-lookups.ts), the plan resolved from the draft and the lookups (pure), the
 * executor running it → re-read of the written rows through the read engine with the request's query. A re-read the
 * caller may not make answers 204. Non-admins write under the rules of their policies (plan/write-access.ts,
 * resolved here once per request). With `options.system`, the service_* collections that have routes of their own
 * are written the same way.
 */
import { randomUUID } from 'node:crypto';
import type { Database, Executor } from '../../db/connection.js';
import { atLine, InvalidPayloadError, RouteNotFoundError, ServiceError } from '../../errors/catalogue.js';
import type { ImportRecord } from '../../io/import-records.js';
import type { AccessResolver } from '../../permissions/access-resolver.js';
import type { Accountability } from '../../permissions/accountability.js';
import type { PermissionSet } from '../../permissions/permission-store.js';
import type { Key, MutationPlan, WriteHashes } from '../../plan/mutation-plan.js';
import { itemsCollection, planCreate, planDelete, planSingleton, planUpdate } from '../../plan/mutation-planner.js';
import { keyOfValues } from '../../plan/row-key.js';
import type { RuleAction, WriteAccess, WriteAction } from '../../plan/write-access.js';
import type { WriteContext } from '../../plan/write-context.js';
import { checkDeletes, resolvePlan } from '../../plan/write-resolution.js';
import type { KeyInput, Query } from '../../request/query.js';
import type { DeleteBody, Payload, UpdateBody } from '../../request/write-body.js';
import { ITEM_SYSTEM_COLLECTIONS } from '../../schema/system-meta.js';
import type { CollectionOverview, SchemaOverview } from '../../schema/types.js';
import { NO_MARKS, type ItemsService, type StageMarks } from '../read/items-service.js';
import { MutationExecutor } from './mutation-executor.js';
import { AuditRecorder, writeAuditTrail } from './audit-trail.js';
import { ChangeRecorder, type ChangeEvents } from './change-events.js';
import type { SystemWrites } from './system-writes.js';
import type { WriteOutbox } from './write-outbox.js';
import type { GuardedAction, PayloadGuard } from './payload-guard.js';
import { WriteLookupStage } from './write-lookups.js';
import { hashWriteValues } from './write-hashes.js';
import { announceWrite, filterWrite, type TopWrite } from './write-events.js';
import type { EventEmitter } from '../events/event-emitter.js';
import { keysByQuery, readKey, readKeys, reread } from './write-reread.js';
import type { OpenedCollection, Reread, WriteOptions, WriteResult } from './opened-collection.js';

/** One item's update, delete and share access, as GET /permissions/me/{collection}/{key} answers it. */
export interface ItemAccess {
  update: { access: boolean; fields?: string[]; presets?: Record<string, unknown> };
  delete: { access: boolean };
  share: { access: boolean };
}

export interface ItemsWriterDeps {
  db: Database;
  schema: () => SchemaOverview;
  items: ItemsService;
  access: AccessResolver;
  maxBatchMutation: number;
  /** Checks and cache invalidation of system-collection writes (needed for `options.system`). */
  systemWrites?: SystemWrites;
  /** argon2 with the HASH_* settings (auth/passwords.ts); tests observe when it runs. */
  hash: (plain: string) => Promise<string>;
  /** Where the changes of each committed write are announced (realtime subscriptions). */
  changes?: ChangeEvents;
  /** Payload checks of system collections that need reads (content versions, comments). */
  guard?: PayloadGuard;
  /** Hook events (filters in the transaction, actions after commit); none: no hooks. */
  events?: EventEmitter;
}

/** A write's top-level payloads for the filters, and how its draft is planned again when a filter changed them. */
interface Filtered {
  top: TopWrite;
  replan: (payloads: Payload[]) => MutationPlan;
}

/** Admits every collection and field at the sync check: the rules are checked (async) once they are loaded. */
const UNCHECKED: WriteAccess = { rules: () => null };

/**
 * What must follow the delete of rows of one collection outside the database (a file's bytes): called with the keys
 * before the transaction (the rows are read as they still are), its answer once the transaction has committed.
 */
export type DeleteHook = (keys: readonly KeyInput[]) => Promise<() => Promise<void>>;

/**
 * What follows a committed create of rows of one collection (a comment's mentions notify): called with the rows'
 * keys, their payloads as written and the creator, before the answer is read.
 */
export type CreatedHook = (keys: readonly Key[], payloads: readonly Payload[], by: Accountability) => Promise<void>;

export class ItemsWriter {
  private readonly deleteHooks = new Map<string, DeleteHook>();
  private readonly createdHooks = new Map<string, CreatedHook>();
  private outbox: WriteOutbox | null = null;

  constructor(private readonly deps: ItemsWriterDeps) {}

  /** Every create of `collection` through this writer (REST, GraphQL, /websocket) runs `hook` once committed. */
  onCreated(collection: string, hook: CreatedHook): void {
    this.createdHooks.set(collection, hook);
  }

  /** Every write's changes are handed to `outbox` in its transaction (the flows' deliveries, write-outbox.ts). */
  useOutbox(outbox: WriteOutbox): void {
    this.outbox = outbox;
  }

  /** Every delete of `collection` through this writer (REST, GraphQL, /websocket, flows) runs `hook`. */
  onDelete(collection: string, hook: DeleteHook): void {
    this.deleteHooks.set(collection, hook);
  }

  /**
   * The one writability check of a write: FORBIDDEN unless `collection` can be written at all (exists, has a key, is
   * not a service_* table unless `options.system`) and the caller has a rule for `action` (null: the write's own
   * rules decide, as for a singleton that may be created or updated). Front ends call it before reading the body.
   */
  async open<R extends Reread = 'json'>(
    collection: string,
    action: WriteAction | null,
    accountability: Accountability,
    options: WriteOptions<R> = {},
  ): Promise<OpenedCollection<R>> {
    const base = await this.context(accountability, options);
    const ctx = options.serviceFields
      ? { ...base, serviceFields: { collection, fields: options.serviceFields } }
      : base;
    return { collection: itemsCollection(collection, ctx, action ?? undefined), ctx, options };
  }

  /**
   * Whether the caller has a rule for `action` on a writable `collection`, from an already loaded permission set
   * (null for admins): for front ends that list what may be written (GraphQL mutations), without a database trip.
   */
  canWrite(
    collection: string,
    action: WriteAction,
    accountability: Accountability,
    permissions: PermissionSet | null,
    options: WriteOptions<Reread> = {},
  ): boolean {
    try {
      itemsCollection(collection, { ...this.baseContext(accountability, options), access: UNCHECKED });
    } catch {
      return false;
    }
    return accountability.admin || Boolean(permissions?.for(collection, action).length);
  }

  /** POST: one item (object) or many (array); answered with the created items as `query` reads them. */
  async create<R extends Reread>(
    target: OpenedCollection<R>,
    items: Payload[],
    many: boolean,
    query: Query,
    marks: StageMarks = NO_MARKS,
  ): Promise<WriteResult<R>> {
    const { collection, ctx } = target;
    if (collection.singleton) throw new RouteNotFoundError(`/items/${collection.collection}`);
    await this.checkSystemPayloads(target, 'create', items, many);
    const draft = planCreate(collection, items, many, ctx);
    marks.mark('plan');
    const keys = await this.execute(target, draft, false, false, {
      top: { collection: collection.collection, action: 'create', payloads: items },
      replan: (payloads) => planCreate(collection, payloads, many, ctx),
    });
    await this.createdHooks.get(collection.collection)?.(keys, items, ctx.accountability);
    marks.mark('write');
    const body = many
      ? await readKeys(this.deps.items, target, keys, query)
      : await readKey(this.deps.items, target, keys[0]!, query);
    marks.mark('read');
    return body;
  }

  /**
   * Import: the records create items in batches of `batchSize` rows (one multi-row INSERT each), all inside one
   * transaction, through the same planner as POST (permissions, presets, validation, hashing, MAX_BATCH_MUTATION
   * counted over the whole import). A bad record fails the import with its line; nothing is written. Answers the
   * number of items created. Hashes are made before each batch's turn in the transaction (import collections with
   * `hash` fields are rare; their argon2 time is spent while the import's connection waits).
   */
  async importRecords(
    target: OpenedCollection<Reread>,
    records: AsyncIterable<ImportRecord>,
    batchSize: number,
    onProgress?: (rows: number) => void,
  ): Promise<number> {
    const { collection, ctx } = target;
    if (collection.singleton)
      throw new InvalidPayloadError(`Can't import into the singleton "${collection.collection}"`);
    let written = 0;
    const changes = this.recorder();
    let recorded = false;
    const top: TopWrite = { collection: collection.collection, action: 'create', payloads: [] };
    const topKeys: Key[] = [];
    await this.deps.db.transaction(async (tx) => {
      let batch: ImportRecord[] = [];
      const flush = async () => {
        const batchCtx = { ...ctx, maxBatchMutation: ctx.maxBatchMutation - written };
        written += await this.importBatch(tx, collection, batch, batchCtx, changes, top, topKeys);
        batch = [];
        onProgress?.(written);
      };
      for await (const record of records) {
        batch.push(record);
        if (batch.length >= batchSize) await flush();
      }
      if (batch.length) await flush();
      recorded = await this.recordOutbox(tx, changes, ctx);
    });
    await this.deps.changes?.emit(changes);
    if (recorded) this.outbox?.committed();
    announceWrite(this.deps.events, top, topKeys, changes, ctx, this.deps.db, this.hooksRecorded(ctx));
    return written;
  }

  /**
   * One batch inside a savepoint; on failure it is rolled back and its rows written one by one (each seeing the
   * ones before it), so that the first failing row names its line.
   */
  private async importBatch(
    tx: Executor,
    collection: CollectionOverview,
    batch: ImportRecord[],
    ctx: WriteContext,
    changes: ChangeRecorder,
    top: TopWrite,
    topKeys: Key[],
  ): Promise<number> {
    // A batch's changes count only once its savepoint is released (a failed batch fails the whole import).
    const batchChanges = this.recorder();
    const batchTop: { payloads: Payload[]; keys: Key[] } = { payloads: [], keys: [] };
    const write = async (records: ImportRecord[]): Promise<number> => {
      let payloads = records.map((r) => r.payload);
      const name = collection.collection;
      const filtered = await filterWrite(this.deps.events, { collection: name, action: 'create', payloads }, ctx, tx);
      if (filtered) payloads = filtered.payloads;
      const draft = planCreate(collection, payloads, true, ctx);
      const keys = await this.run(tx, draft, ctx, await hashWriteValues(draft, ctx, this.deps.hash), batchChanges);
      batchTop.payloads.push(...payloads);
      batchTop.keys.push(...keys);
      return draft.rowCount;
    };
    await tx.query('savepoint strata_import');
    try {
      const count = await write(batch);
      await tx.query('release savepoint strata_import');
      for (const event of batchChanges.events())
        for (const key of event.keys)
          changes.record(
            event.collection,
            event.action,
            [key],
            batchChanges.valuesOf(event.collection, event.action, key),
          );
      top.payloads.push(...batchTop.payloads);
      topKeys.push(...batchTop.keys);
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
  async updateOne<R extends Reread>(
    target: OpenedCollection<R>,
    key: string,
    payload: Payload,
    query: Query,
    marks: StageMarks = NO_MARKS,
  ): Promise<WriteResult<R>> {
    const { collection, ctx } = target;
    if (collection.singleton) throw new RouteNotFoundError(`/items/${collection.collection}/${key}`);
    await this.checkSystemPayloads(target, 'update', [payload], false);
    const draft = planUpdate(collection, [{ key, payload }], false, ctx);
    marks.mark('plan');
    const [written] = await this.execute(target, draft, false, false, {
      top: { collection: collection.collection, action: 'update', payloads: [payload], keys: [key] },
      replan: ([data]) => planUpdate(collection, [{ key, payload: data! }], false, ctx),
    });
    marks.mark('write');
    const body = await readKey(this.deps.items, target, written!, query);
    marks.mark('read');
    return body;
  }

  /** PATCH /items/{c}: an array of items with keys, `{keys, data}` or `{query, data}`. */
  async updateMany<R extends Reread>(
    target: OpenedCollection<R>,
    body: UpdateBody,
    query: Query,
    marks: StageMarks = NO_MARKS,
  ): Promise<WriteResult<R>> {
    const { collection, ctx } = target;
    let draft: MutationPlan;
    let filtered: Filtered;
    const name = collection.collection;
    if (body.kind === 'batch') {
      await this.checkSystemPayloads(target, 'update', body.items, true);
      const batchKeys = body.items.map((payload) => keyOfValues(collection, payload) ?? undefined);
      const replan = (payloads: Payload[]) =>
        planUpdate(
          collection,
          payloads.map((payload, i) => ({ key: batchKeys[i], payload })),
          true,
          ctx,
        );
      draft = replan(body.items);
      const keys = batchKeys.map((k) => k ?? '');
      filtered = { top: { collection: name, action: 'update', payloads: body.items, keys, batch: true }, replan };
    } else {
      await this.checkSystemPayloads(target, 'update', [body.data], false);
      const keys = body.kind === 'keys' ? body.keys : await keysByQuery(this.deps.items, target, body.query);
      if (keys.length === 0) return readKeys(this.deps.items, target, [], query);
      const replan = ([data]: Payload[]) =>
        planUpdate(
          collection,
          keys.map((key) => ({ key, payload: data! })),
          false,
          ctx,
          true,
        );
      draft = replan([body.data]);
      filtered = { top: { collection: name, action: 'update', payloads: [body.data], keys }, replan };
    }
    marks.mark('plan');
    // An array updates each item on its own, as Directus's updateBatch does (and announces each apart).
    const keys = await this.execute(target, draft, false, body.kind === 'batch', filtered);
    marks.mark('write');
    const result = await readKeys(this.deps.items, target, keys, query);
    marks.mark('read');
    return result;
  }

  /** PATCH /items/{singleton} (and /settings): updates its one row, or creates it (looked up in the transaction). */
  async upsertSingleton<R extends Reread>(
    target: OpenedCollection<R>,
    payload: Payload,
    query: Query,
    marks: StageMarks = NO_MARKS,
  ): Promise<WriteResult<R>> {
    const draft = planSingleton(target.collection, payload, target.ctx);
    marks.mark('plan');
    await this.execute(target, draft, true, false, {
      top: { collection: target.collection.collection, action: 'update', payloads: [payload], keys: [] },
      replan: ([data]) => planSingleton(target.collection, data!, target.ctx),
    });
    marks.mark('write');
    const { collection, options, ctx } = target;
    const singletonQuery = { ...query, meta: undefined };
    const body = await reread(
      this.deps.items,
      options,
      (items, read) =>
        items.readMany(collection.collection, singletonQuery, ctx.accountability, NO_MARKS, {
          ...read,
          singleton: true,
        }),
      (items, read) =>
        items.rowsMany(collection.collection, singletonQuery, ctx.accountability, NO_MARKS, {
          ...read,
          singleton: true,
        }),
    );
    marks.mark('read');
    return body;
  }

  /** DELETE /items/{c}/{pk} and DELETE /items/{c} (array of keys, `{keys}` or `{query}`); always 204. */
  async delete(target: OpenedCollection<Reread>, body: DeleteBody, marks: StageMarks = NO_MARKS): Promise<void> {
    const { collection, ctx } = target;
    const keys = body.kind === 'keys' ? body.keys : await keysByQuery(this.deps.items, target, body.query);
    let plan = planDelete(collection, keys, ctx);
    marks.mark('plan');
    const after = await this.deleteHooks.get(collection.collection)?.(keys);
    const top: TopWrite = { collection: collection.collection, action: 'delete', payloads: [], keys: plan.keys };
    const announce = (changes: ChangeRecorder) =>
      announceWrite(this.deps.events, top, plan.keys, changes, ctx, this.deps.db, this.hooksRecorded(ctx));
    await this.transaction(
      ctx,
      new Set([collection.collection]),
      async (tx, changes) => {
        const filtered = await filterWrite(this.deps.events, top, ctx, tx);
        if (filtered) plan = planDelete(collection, filtered.keys ?? [], ctx);
        checkDeletes(plan, await new WriteLookupStage(tx, this.deps.db.dialect, ctx).forDelete(plan));
        const audit = new AuditRecorder();
        await new MutationExecutor(tx, this.deps.db.dialect, ctx.schema, changes, audit).delete(plan);
        await writeAuditTrail(tx, this.deps.db.dialect, ctx, audit);
      },
      announce,
    );
    marks.mark('write');
    await after?.();
  }

  /**
   * What the caller may do to one item (GET /permissions/me/{collection}/{key}, as Directus answers it): whether its
   * update, delete and share rules hold on the row, found by the lookups a write of it would make (nothing written).
   * Without a key, a singleton's row (update reads as create while it has none); any other collection is then judged
   * on its rules alone. A collection that can't be written, a key that can't be one or a missing row: no access.
   */
  async itemAccess(name: string, key: string | undefined, accountability: Accountability): Promise<ItemAccess> {
    const answer = (update: boolean, remove: boolean, share: boolean): ItemAccess => ({
      update: { access: update },
      delete: { access: remove },
      share: { access: share },
    });
    if (accountability.admin) return answer(true, true, true);
    // The system collections served as items (users, roles, policies…) are judged as their routes write them: by the
    // caller's rules there, the app-access minimal ones included (a user may update its own profile).
    const ctx = await this.context(accountability, { system: ITEM_SYSTEM_COLLECTIONS.has(name) });
    let collection: CollectionOverview;
    let keys: Key[];
    try {
      collection = itemsCollection(name, ctx);
      keys = key === undefined ? [] : planDelete(collection, [key], ctx).keys;
    } catch (error) {
      if (error instanceof ServiceError) return answer(false, false, false);
      throw error;
    }
    const lookups = new WriteLookupStage(this.deps.db, this.deps.db.dialect, ctx);
    let update: 'update' | 'create' = 'update';
    if (key === undefined && collection.singleton) {
      const first = await lookups.firstKey(collection);
      if (first === null) update = 'create';
      else keys = [first];
    }
    const holds = async (action: RuleAction): Promise<boolean> => {
      if (!ctx.access?.rules(collection, action)) return false;
      if (!keys.length || action === 'create') return true;
      const found = await lookups.allowed(collection, keys, action as Exclude<RuleAction, 'create'>);
      return keys.every((k) => found.get(String(k)) === true);
    };
    const result = answer(await holds(update), await holds('delete'), await holds('share'));
    if (collection.singleton && result.update.access) {
      const rules = ctx.access!.rules(collection, update)!;
      result.update.fields = rules.fields === '*' ? ['*'] : [...rules.fields];
      result.update.presets = rules.presets;
    }
    return result;
  }

  private baseContext(accountability: Accountability, options: WriteOptions<Reread>): WriteContext {
    return {
      schema: this.deps.schema(),
      accountability,
      now: new Date(),
      uuid: randomUUID,
      maxBatchMutation: this.deps.maxBatchMutation,
      system: options.system,
      client: options.client ?? { ip: accountability.ip, userAgent: null, origin: null },
      trail: options.trail ?? true,
      flowEvents: options.flowEvents ?? true,
    };
  }

  /**
   * The write context; a non-admin's rules resolved for this request (variables such as $CURRENT_USER included),
   * once per request.
   */
  private async context(accountability: Accountability, options: WriteOptions<Reread>): Promise<WriteContext> {
    const ctx = this.baseContext(accountability, options);
    if (accountability.admin) return ctx;
    return { ...ctx, access: await this.deps.access.write(ctx.schema, accountability, ctx.now) };
  }

  private async checkSystemPayloads(
    target: OpenedCollection<Reread>,
    action: GuardedAction,
    payloads: Payload[],
    many: boolean,
  ): Promise<void> {
    if (!target.ctx.system) return;
    const name = target.collection.collection;
    await this.deps.systemWrites?.checkPayloads(name, payloads, many);
    await this.deps.guard?.check(name, action, payloads, target.ctx.accountability);
  }

  /**
   * Hashes first (no connection held), then one transaction: lookups, the plan, its execution. The rows' keys.
   * `apart`: the plan's top-level updates are announced item by item (ChangeEvent.apart).
   */
  private async execute(
    target: OpenedCollection<Reread>,
    draft: MutationPlan,
    singleton = false,
    apart = false,
    filtered?: Filtered,
  ): Promise<Key[]> {
    const { ctx } = target;
    const hashes = await hashWriteValues(draft, ctx, this.deps.hash);
    const touched =
      this.deps.systemWrites && ctx.system ? this.deps.systemWrites.touched(draft.rows) : new Set<string>();
    let top = filtered?.top ?? null;
    return this.transaction(
      ctx,
      touched,
      async (tx, changes) => {
        let plan = draft;
        let planHashes = hashes;
        const changed = filtered && (await filterWrite(this.deps.events, filtered.top, ctx, tx));
        if (changed) {
          // A filter changed the payload: planned and hashed again, inside the transaction (rare; hooks only).
          plan = filtered.replan(changed.payloads);
          top = { ...filtered.top, payloads: changed.payloads };
          planHashes = await hashWriteValues(plan, ctx, this.deps.hash);
        }
        const keys = await this.run(tx, plan, ctx, planHashes, changes, singleton);
        if (apart) changes.markApart(plan.collection.collection, 'update');
        return keys;
      },
      (changes, keys) =>
        announceWrite(this.deps.events, top, keys, changes, ctx, this.deps.db, this.hooksRecorded(ctx)),
    );
  }

  private async run(
    tx: Executor,
    draft: MutationPlan,
    ctx: WriteContext,
    hashes: WriteHashes,
    changes: ChangeRecorder,
    singleton = false,
  ): Promise<Key[]> {
    const lookups = await new WriteLookupStage(tx, this.deps.db.dialect, ctx).forWrite(draft, singleton);
    const plan = resolvePlan(draft, lookups, hashes, ctx);
    const audit = new AuditRecorder();
    const keys = await new MutationExecutor(tx, this.deps.db.dialect, ctx.schema, changes, audit).write(plan.rows);
    // In the write's transaction (an import's: inside its batch's savepoint), after its statements.
    await writeAuditTrail(tx, this.deps.db.dialect, ctx, audit);
    return keys;
  }

  /**
   * One transaction; system writes keep an active admin and drop the caches they make stale once committed. Its
   * change events are emitted once it has committed.
   */
  private async transaction<T>(
    ctx: WriteContext,
    touched: Set<string>,
    work: (tx: Executor, changes: ChangeRecorder) => Promise<T>,
    announce?: (changes: ChangeRecorder, result: T) => void,
  ): Promise<T> {
    const system = ctx.system ? this.deps.systemWrites : undefined;
    const changes = this.recorder();
    let recorded = false;
    // The outbox's rows are written last in the transaction: they commit, or roll back, with the change.
    const withOutbox = async (tx: Executor): Promise<T> => {
      const result = await work(tx, changes);
      recorded = await this.recordOutbox(tx, changes, ctx);
      return result;
    };
    if (!system) {
      const result = await this.deps.db.transaction(withOutbox);
      await this.deps.changes?.emit(changes);
      if (recorded) this.outbox?.committed();
      announce?.(changes, result);
      return result;
    }
    let result: T;
    await this.deps.db.transaction((tx) =>
      system.keepAdmin(tx, touched, ctx.accountability, async () => void (result = await withOutbox(tx))),
    );
    await system.committed(touched);
    await this.deps.changes?.emit(changes);
    if (recorded) this.outbox?.committed();
    announce?.(changes, result!);
    return result!;
  }

  private recorder(): ChangeRecorder {
    return new ChangeRecorder(this.outbox?.listening() ?? false);
  }

  /** Whether this write's outbox recorded the extensions' durable actions (announceWrite leaves them out). */
  private hooksRecorded(ctx: WriteContext): boolean {
    return this.outbox !== null && ctx.flowEvents !== false && this.outbox.handlesHooks();
  }

  private recordOutbox(tx: Executor, changes: ChangeRecorder, ctx: WriteContext): Promise<boolean> {
    if (!this.outbox || ctx.flowEvents === false) return Promise.resolve(false);
    return this.outbox.record(tx, changes, ctx);
  }
}
