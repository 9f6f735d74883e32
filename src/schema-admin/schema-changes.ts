/**
 * Runs schema changes one at a time and reloads the schema overview after each, so the next request sees the new
 * structure. One at a time per instance (an in-process queue) and across instances (a named database lock held
 * while the change is built and run); when other instances may exist, the overview is reloaded under that lock
 * first, so a change is never planned against a structure another instance has just altered.
 *
 * A change is a plan of three phases, as data (src/schema-admin/plan/schema-steps.ts, run by src/db/schema-executor.ts): checks
 * (counts that refuse bad changes with a clear reason), DDL steps, and metadata writes. Where DDL is transactional
 * (PostgreSQL, SQLite) all three run in one transaction: any failure leaves nothing behind. On MySQL/MariaDB every
 * DDL statement commits on its own: the checks run first, then the DDL, then the metadata in a transaction; if a
 * later step fails, the DDL statements already run are undone in reverse order, and if the process is killed
 * half-way, the journal of the change lets the next start (or change) undo them (src/db/schema-journal.ts).
 *
 * `batch` groups several changes (a schema apply): where DDL is transactional they share one transaction under the
 * lock, each planned against the overview as that transaction sees it, so a failure undoes all of them; elsewhere
 * each change stays its own.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Database } from '../db/connection.js';
import { ForeignKeyViolationError, SchemaCheckFailedError, SchemaRefusedError } from '../db/schema-ddl.js';
import { SchemaExecutor, type SchemaSession } from '../db/schema-executor.js';
import { formatSteps, type CheckStep, type DdlStep, type SchemaSteps, type WriteStep } from './plan/schema-steps.js';
import { ContainsNullValuesError, InvalidPayloadError, ServiceError } from '../errors/catalogue.js';
import { DatabaseError } from '../errors/database-error.js';
import type { SchemaOverview } from '../schema/types.js';

/** The named database lock every schema change runs under, on every instance. */
const SCHEMA_LOCK = 'strata:schema-change';

/**
 * Where DDL commits statement by statement (MySQL/MariaDB): undoes the changes a stopped process cut short (their
 * journal, src/db/schema-journal.ts), under the schema-change lock; at start, before the overview is first read.
 * Answers how many were undone.
 */
export async function undoCutShortChanges(db: Database, log: SchemaChangeLog): Promise<number> {
  const executor = new SchemaExecutor(db, {
    onUndoFailure: (error) => log.error({ err: error }, 'Undoing a schema change cut short failed'),
  });
  if (executor.transactional) return 0;
  return db.withLock(SCHEMA_LOCK, () => executor.recover());
}

/** A planned change: data (schema-steps.ts), built from the schema overview without touching the database. */
export class SchemaChangePlan implements SchemaSteps {
  readonly checks: CheckStep[] = [];
  readonly ddl: DdlStep[] = [];
  readonly writes: WriteStep[] = [];
  /** The change edits service_permissions rows: cached permission sets must go. */
  permissionsTouched = false;

  constructor(
    /** What the change is, for the error a refused database statement turns into. */
    public failure: string,
  ) {}

  check(step: Omit<CheckStep, 'kind'>): void {
    this.checks.push({ kind: 'check', ...step });
  }

  alter(step: DdlStep): void {
    this.ddl.push(step);
  }

  write(step: WriteStep): void {
    this.writes.push(step);
  }

  get empty(): boolean {
    return this.ddl.length === 0 && this.writes.length === 0;
  }

  toString(): string {
    return formatSteps(this);
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
  /** Reads the overview as a batch's transaction sees it, without keeping it. */
  read(session: SchemaSession): Promise<SchemaOverview>;
  /** Reloads the overview after a change, and tells the other instances. */
  schemaChanged(): Promise<void>;
  /** Drops cached permissions here and on the other instances. */
  permissionsChanged(): Promise<void>;
}

type ChangeBuilder<T> = (
  schema: SchemaOverview,
) => { plan: SchemaChangePlan; result: T } | Promise<{ plan: SchemaChangePlan; result: T }>;

/** A batch in progress: its transaction, the overview as the transaction sees it, and what it touched. */
interface Batch {
  session: SchemaSession;
  schema: SchemaOverview;
  changed: boolean;
  permissionsTouched: boolean;
  result: unknown;
}

export class SchemaChanges {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly batches = new AsyncLocalStorage<Batch>();
  private readonly executor: SchemaExecutor;

  constructor(
    private readonly db: Database,
    private readonly hooks: SchemaChangeHooks,
    private readonly log: SchemaChangeLog = { error: () => {} },
  ) {
    this.executor = new SchemaExecutor(db, {
      onUndoFailure: (error) => this.log.error({ err: error }, 'Undoing a failed schema change failed'),
    });
  }

  /**
   * Queues a change: `build` gets the schema as it is when the change's turn comes and returns the plan (and the
   * value to answer with). The overview is reloaded before the promise settles.
   */
  run<T>(build: ChangeBuilder<T>): Promise<T> {
    const batch = this.batches.getStore();
    if (batch) return this.applyInBatch(batch, build);
    const turn = this.queue.then(() => this.db.withLock(SCHEMA_LOCK, () => this.apply(build)));
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
    if (!this.executor.transactional || this.batches.getStore()) return work();
    const turn = this.queue.then(() =>
      this.db.withLock(SCHEMA_LOCK, async () => {
        if (await this.hooks.stale()) await this.hooks.reload();
        const state = await (async () => {
          try {
            return await this.executor.transaction(async (session) => {
              const batch: Batch = {
                session,
                schema: await this.hooks.read(session),
                changed: false,
                permissionsTouched: false,
                result: undefined,
              };
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
      await this.executor.runIn(batch.session, plan);
    } catch (error) {
      throw this.translate(error, plan);
    }
    batch.changed = true;
    batch.permissionsTouched ||= plan.permissionsTouched;
    batch.schema = await this.hooks.read(batch.session);
    return result;
  }

  private async apply<T>(build: ChangeBuilder<T>): Promise<T> {
    // A change another instance's stopped process cut short is undone first (its journal, under this lock).
    if (!this.executor.transactional && (await this.executor.recover())) await this.hooks.schemaChanged();
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
      if (!failed || !this.executor.transactional) {
        await this.hooks.schemaChanged();
        if (plan.permissionsTouched) await this.hooks.permissionsChanged();
      }
    }
    return result;
  }

  private async execute(plan: SchemaChangePlan): Promise<void> {
    if (this.executor.transactional) await this.executor.transaction((session) => this.executor.runIn(session, plan));
    else await this.executor.runStepwise(plan, plan.failure);
  }

  /** Catalogue errors pass; a statement the database refused becomes INVALID_PAYLOAD naming the change. */
  private translate(error: unknown, plan: SchemaChangePlan): unknown {
    if (error instanceof ServiceError || (error instanceof DatabaseError && error.kind === 'connection')) return error;
    if (error instanceof SchemaCheckFailedError) {
      const { refusal, count } = error;
      if (refusal.kind === 'containsNulls') return new ContainsNullValuesError(refusal.collection, refusal.field);
      return new InvalidPayloadError(
        refusal.kind === 'counted' ? `${refusal.before}${count}${refusal.after}` : refusal.message,
      );
    }
    if (error instanceof SchemaRefusedError) return new InvalidPayloadError(`${plan.failure}: ${error.reason}`);
    if (error instanceof ForeignKeyViolationError) {
      return new InvalidPayloadError(
        `${plan.failure}: rows of collection "${error.table}" would point at items that don't exist`,
      );
    }
    this.log.error({ err: error, steps: plan.toString() }, `Schema change refused by the database: ${plan.failure}`);
    const refused = new InvalidPayloadError(`${plan.failure}: the database refused the change`);
    (refused as { cause?: unknown }).cause = error;
    return refused;
  }
}
