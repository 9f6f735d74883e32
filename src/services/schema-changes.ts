/**
 * Runs schema changes one at a time and reloads the schema overview after each, so the next request sees the new
 * structure. One at a time per instance (an in-process queue) and across instances (a named database lock held
 * while the change is built and run); when other instances may exist, the overview is reloaded under that lock
 * first, so a change is never planned against a structure another instance has just altered.
 *
 * A change is a plan of three phases: checks (reads that refuse bad changes with a clear reason), DDL, and metadata
 * writes. Where DDL is transactional (PostgreSQL, SQLite) all three run in one transaction: any failure leaves
 * nothing behind. On MySQL/MariaDB every DDL statement commits on its own: the checks run first, then the DDL, then
 * the metadata in a transaction; if a later step fails, the DDL steps already taken are undone in reverse order.
 *
 * `batch` groups several changes (a schema apply): where DDL is transactional they share one transaction under the
 * lock, each planned against the overview as that transaction sees it, so a failure undoes all of them; elsewhere
 * each change stays its own.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';
import { queryBuilder, type Database } from '../db/connection.js';
import { isConnectionError } from '../db/connection-errors.js';
import { ForeignKeyViolationError, SchemaRefusedError, type Undo } from '../db/schema-ddl.js';
import { InvalidPayloadError, ServiceError } from '../errors/catalogue.js';
import type { SchemaOverview } from '../schema/types.js';

type Step = (knex: Knex) => Promise<unknown>;

export class SchemaChangePlan {
  readonly checks: Step[] = [];
  readonly ddl: Step[] = [];
  readonly writes: Step[] = [];
  /** The change edits service_permissions rows: cached permission sets must go. */
  permissionsTouched = false;

  constructor(
    /** What the change is, for the error a refused database statement turns into. */
    public failure: string,
  ) {}

  check(step: Step): void {
    this.checks.push(step);
  }

  /** A DDL step; it may return an Undo (non-transactional databases). */
  alter(step: (knex: Knex) => Promise<Undo | null | void>): void {
    this.ddl.push(step);
  }

  write(step: Step): void {
    this.writes.push(step);
  }

  get empty(): boolean {
    return this.ddl.length === 0 && this.writes.length === 0;
  }
}

export interface SchemaChangeLog {
  error(object: unknown, message: string): void;
}

export interface SchemaChangeHooks {
  /** The schema overview as it is now. */
  current(): SchemaOverview;
  /** Whether another instance may have changed the schema since this one loaded it: then it reloads before a change. */
  stale(): Promise<boolean>;
  /** Reloads the overview from the database (without announcing anything). */
  reload(): Promise<SchemaOverview>;
  /** Reads the overview through `knex` (a batch's transaction), without keeping it. */
  read(knex: Knex): Promise<SchemaOverview>;
  /** Reloads the overview after a change, and tells the other instances. */
  schemaChanged(): Promise<void>;
  /** Drops cached permissions here and on the other instances. */
  permissionsChanged(): Promise<void>;
}

type ChangeBuilder<T> = (schema: SchemaOverview) => { plan: SchemaChangePlan; result: T } | Promise<{ plan: SchemaChangePlan; result: T }>;

/** A batch in progress: its transaction, the overview as the transaction sees it, and what it touched. */
interface Batch {
  trx: Knex.Transaction;
  schema: SchemaOverview;
  changed: boolean;
  permissionsTouched: boolean;
  result: unknown;
}

export class SchemaChanges {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly batches = new AsyncLocalStorage<Batch>();

  constructor(
    private readonly db: Database,
    private readonly hooks: SchemaChangeHooks,
    private readonly log: SchemaChangeLog = { error: () => {} },
  ) {}

  /**
   * Queues a change: `build` gets the schema as it is when the change's turn comes and returns the plan (and the
   * value to answer with). The overview is reloaded before the promise settles.
   */
  run<T>(build: ChangeBuilder<T>): Promise<T> {
    const batch = this.batches.getStore();
    if (batch) return this.applyInBatch(batch, build);
    const turn = this.queue.then(() => this.db.withLock('strata:schema-change', () => this.apply(build)));
    this.queue = turn.catch(() => {});
    return turn;
  }

  /**
   * The overview services describe their results from: inside a batch, the batch's (the stored one does not have
   * its uncommitted changes yet).
   */
  current(): SchemaOverview {
    return this.batches.getStore()?.schema ?? this.hooks.current();
  }

  /**
   * Runs `work`, whose schema changes (`run` calls) then form one unit. With transactional DDL: one transaction under
   * the lock, committed when `work` resolves and rolled back entirely when it throws; the overview is reloaded and
   * announced once, after a commit. Without (MySQL/MariaDB, where DDL commits on its own): `work` runs as is, each
   * change on its own.
   */
  batch<T>(work: () => Promise<T>): Promise<T> {
    const ddl = this.db.dialect.ddl;
    if (!ddl.transactional || this.batches.getStore()) return work();
    const turn = this.queue.then(() =>
      this.db.withLock('strata:schema-change', async () => {
        if (await this.hooks.stale()) await this.hooks.reload();
        const state = await (async () => {
          try {
            return await ddl.transaction(queryBuilder(this.db), async (trx) => {
              const batch: Batch = { trx, schema: await this.hooks.read(trx), changed: false, permissionsTouched: false, result: undefined };
              batch.result = await this.batches.run(batch, work);
              return batch;
            });
          } catch (error) {
            // Errors of the changes arrive translated; a failing commit (SQLite's foreign key check of rebuilt
            // tables) names no change.
            throw this.translate(error, new SchemaChangePlan('The schema changes could not be committed'));
          }
        })();
        // Rolled back, nothing changed; committed, everyone is told once.
        if (state.changed) {
          await this.hooks.schemaChanged();
          if (state.permissionsTouched) await this.hooks.permissionsChanged();
        }
        return state.result as T;
      }),
    );
    this.queue = turn.catch(() => {});
    return turn;
  }

  private async applyInBatch<T>(batch: Batch, build: ChangeBuilder<T>): Promise<T> {
    const { plan, result } = await build(batch.schema);
    if (plan.empty) return result;
    try {
      for (const step of plan.checks) await step(batch.trx);
      for (const step of plan.ddl) await step(batch.trx);
      for (const step of plan.writes) await step(batch.trx);
    } catch (error) {
      throw this.translate(error, plan);
    }
    batch.changed = true;
    batch.permissionsTouched ||= plan.permissionsTouched;
    batch.schema = await this.hooks.read(batch.trx);
    return result;
  }

  private async apply<T>(build: ChangeBuilder<T>): Promise<T> {
    const schema = (await this.hooks.stale()) ? await this.hooks.reload() : this.hooks.current();
    const { plan, result } = await build(schema);
    if (plan.empty) return result;
    let failed = false;
    try {
      await this.execute(plan);
    } catch (error) {
      failed = true;
      throw this.translate(error, plan);
    } finally {
      // After a failure only a database without transactional DDL can have changed.
      if (!failed || !this.db.dialect.ddl.transactional) {
        await this.hooks.schemaChanged();
        if (plan.permissionsTouched) await this.hooks.permissionsChanged();
      }
    }
    return result;
  }

  private async execute(plan: SchemaChangePlan): Promise<void> {
    const knex = queryBuilder(this.db);
    const ddl = this.db.dialect.ddl;
    if (ddl.transactional) {
      await ddl.transaction(knex, async (trx) => {
        for (const step of plan.checks) await step(trx);
        for (const step of plan.ddl) await step(trx);
        for (const step of plan.writes) await step(trx);
      });
      return;
    }
    for (const step of plan.checks) await step(knex);
    const undo: Undo[] = [];
    try {
      for (const step of plan.ddl) {
        const back = await step(knex);
        if (typeof back === 'function') undo.push(back as Undo);
      }
      if (plan.writes.length) {
        await knex.transaction(async (trx) => {
          for (const step of plan.writes) await step(trx);
        });
      }
    } catch (error) {
      for (const back of undo.reverse()) {
        await back(knex).catch((undoError: unknown) => this.log.error({ err: undoError }, 'Undoing a failed schema change failed'));
      }
      throw error;
    }
  }

  /** Catalogue errors pass; a statement the database refused becomes INVALID_PAYLOAD naming the change. */
  private translate(error: unknown, plan: SchemaChangePlan): unknown {
    if (error instanceof ServiceError || isConnectionError(error)) return error;
    if (error instanceof SchemaRefusedError) return new InvalidPayloadError(`${plan.failure}: ${error.reason}`);
    if (error instanceof ForeignKeyViolationError) {
      return new InvalidPayloadError(`${plan.failure}: rows of collection "${error.table}" would point at items that don't exist`);
    }
    this.log.error({ err: error }, `Schema change refused by the database: ${plan.failure}`);
    const refused = new InvalidPayloadError(`${plan.failure}: the database refused the change`);
    (refused as { cause?: unknown }).cause = error;
    return refused;
  }
}
