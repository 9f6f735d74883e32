/**
 * Runs the steps of a schema change (schema-steps.ts): checks count what would forbid it, DDL steps are rendered by
 * the dialect one statement at a time and run, metadata writes go to the service_* tables. Where DDL is
 * transactional everything runs in the session (one transaction) it is given. Elsewhere (MySQL/MariaDB) `runStepwise`
 * checks first, then runs the DDL keeping each statement's undo, then the writes in a transaction; a failure runs
 * the undo statements taken so far, last first. The undo is journaled as it grows (schema-journal.ts) and the
 * journal closed in the writes' transaction, so a process killed half-way leaves what `recover` needs to undo it.
 */
import type { Knex } from 'knex';
import { countDuplicates, countNulls, countOrphans, countRows } from './column-checks.js';
import { queryBuilder, type Database } from './connection.js';
import { raised } from './failure-kind.js';
import {
  ForeignKeyViolationError,
  SchemaCheckFailedError,
  SchemaRefusedError,
  type DdlCatalog,
  type DdlStatement,
  type SchemaDdl,
} from './schema-ddl.js';
import type { CheckStep, DdlStep, SchemaSteps, WriteStep } from '../schema-admin/plan/schema-steps.js';
import { withoutListItem } from './list-items.js';
import { closeJournal, noteJournal, openJournal, readJournal } from './schema-journal.js';

declare const sessionBrand: unique symbol;
/** A schema change's transaction, opaque outside src/db. */
export type SchemaSession = { readonly [sessionBrand]: 'SchemaSession' };

export interface SchemaExecutorOptions {
  /** Told of every DDL statement before it runs (tests record them). */
  onStatement?: (statement: DdlStatement) => void;
  /** Told of an undo statement that failed (the change is refused either way). */
  onUndoFailure?: (error: unknown) => void;
}

export class SchemaExecutor {
  private readonly ddl: SchemaDdl;

  constructor(
    private readonly db: Database,
    private readonly options: SchemaExecutorOptions = {},
  ) {
    this.ddl = db.dialect.ddl;
  }

  get transactional(): boolean {
    return this.ddl.transactional;
  }

  /** Runs `work` in one schema-change transaction (the dialect's: SQLite turns foreign keys off for rebuilds). */
  transaction<T>(work: (session: SchemaSession) => Promise<T>): Promise<T> {
    return this.ddl
      .transaction(queryBuilder(this.db), (trx) => work(trx as unknown as SchemaSession))
      .catch((error: unknown) => this.leaving(error));
  }

  /** Runs all three phases in the session. */
  async runIn(session: SchemaSession, steps: SchemaSteps): Promise<void> {
    const knex = knexOf(session);
    try {
      for (const step of steps.checks) await this.check(knex, step);
      for (const step of steps.ddl) await this.alter(knex, step);
      for (const step of steps.writes) await write(knex, step);
    } catch (error) {
      this.leaving(error);
    }
  }

  /** Refusals of the change as they are (the caller names the change in them), a driver's error as a DatabaseError. */
  private leaving(error: unknown): never {
    if (
      error instanceof SchemaCheckFailedError ||
      error instanceof SchemaRefusedError ||
      error instanceof ForeignKeyViolationError
    )
      throw error;
    throw raised(this.db.dialect, error);
  }

  /**
   * Without transactional DDL: checks, then DDL with undo on failure, then the writes in one transaction. Given
   * `journal` (what the change is), the undo is journaled and the entry closed in the writes' transaction.
   */
  async runStepwise(steps: SchemaSteps, journal?: string): Promise<void> {
    const knex = queryBuilder(this.db);
    for (const step of steps.checks) await this.check(knex, step);
    const undo: DdlStatement[] = [];
    const entry = journal !== undefined && steps.ddl.length ? await openJournal(knex, journal) : null;
    try {
      for (const step of steps.ddl) await this.alter(knex, step, { undo, journal: entry });
      if (steps.writes.length || entry !== null) {
        await knex.transaction(async (trx) => {
          for (const step of steps.writes) await write(trx, step);
          if (entry !== null) await closeJournal(trx, entry);
        });
      }
    } catch (error) {
      // Cut short while undoing, the next recovery takes each undo as one that may already have run.
      if (entry !== null) await noteJournal(knex, entry, [], undo).catch(() => {});
      for (const statement of undo.reverse()) {
        await this.ddl
          .run(knex, statement.sql, statement.params)
          .catch((undoError: unknown) => this.options.onUndoFailure?.(undoError));
      }
      if (entry !== null) await closeJournal(knex, entry).catch(() => {});
      this.leaving(error);
    }
  }

  /**
   * Undoes the changes a process cut short (their journal entries), last first; run under the schema-change lock,
   * so no entry belongs to a change still running. A pending statement's undo may fail: that statement may never
   * have run. Answers how many changes were undone.
   */
  async recover(): Promise<number> {
    const knex = queryBuilder(this.db);
    const entries = await readJournal(knex).catch((error: unknown) => this.leaving(error));
    for (const entry of entries) {
      for (const statement of [...entry.pending].reverse())
        await this.ddl.run(knex, statement.sql, statement.params).catch(() => {});
      for (const statement of [...entry.undo].reverse()) {
        await this.ddl
          .run(knex, statement.sql, statement.params)
          .catch((undoError: unknown) => this.options.onUndoFailure?.(undoError));
      }
      await closeJournal(knex, entry.id).catch((error: unknown) => this.leaving(error));
    }
    return entries.length;
  }

  private async check(knex: Knex, step: CheckStep): Promise<void> {
    const n = await this.count(knex, step.query);
    if (n > step.atMost) throw new SchemaCheckFailedError(step.refusal, n);
  }

  private async count(knex: Knex, query: CheckStep['query']): Promise<number> {
    switch (query.count) {
      case 'rows':
        return countRows(knex, query.table);
      case 'nulls':
        return countNulls(knex, query.table, query.column);
      case 'duplicates':
        return countDuplicates(knex, query.table, query.column);
      case 'orphans':
        return countOrphans(knex, query.table, query.column, query.foreignTable, query.foreignColumn);
      case 'lossy': {
        const statement = this.ddl.lossyCount(query.table, query.column, query.conversion, query.target);
        const [row] = await this.ddl.run(knex, statement.sql, statement.params);
        return Number(row?.n ?? 0);
      }
    }
  }

  /**
   * Renders the step statement by statement and runs each; `undo` collects what puts them back, and the journal
   * entry holds it (and the undo of the statement about to run) before each runs.
   */
  private async alter(
    knex: Knex,
    step: DdlStep,
    stepwise?: { undo: DdlStatement[]; journal: number | null },
  ): Promise<void> {
    const undo = stepwise?.undo;
    const catalog: DdlCatalog = { query: (sql, params) => this.ddl.run(knex, sql, params), session: knex };
    for await (const statement of this.ddl.statements(step, catalog)) {
      this.options.onStatement?.(statement);
      if (stepwise?.journal != null)
        await noteJournal(knex, stepwise.journal, stepwise.undo, [...(statement.undo ?? [])].reverse());
      try {
        await this.db.observed('ddl', () => this.ddl.run(knex, statement.sql, statement.params));
      } catch (error) {
        if (statement.refusal && this.ddl.refuses(error)) throw new SchemaRefusedError(statement.refusal);
        throw error;
      }
      if (undo && statement.undo) undo.push(...[...statement.undo].reverse());
    }
  }
}

/** The query handle of a session, for reading the schema as the change's transaction sees it. */
export function knexOf(session: SchemaSession): Knex {
  return session as unknown as Knex;
}

async function write(knex: Knex, step: WriteStep): Promise<void> {
  switch (step.kind) {
    case 'insertRow':
      await knex(step.table).insert(step.row);
      return;
    case 'updateRows':
      await knex(step.table).where(step.where).update(step.set);
      return;
    case 'deleteRows':
      // Revisions of other collections may name these as their parent (a nested write): the link goes first. The
      // derived table lets MySQL update the table its subquery reads.
      if (step.table === 'service_revisions')
        await knex('service_revisions')
          .whereIn(
            'parent',
            knex.select('id').from(knex('service_revisions').select('id').where(step.where).as('gone')),
          )
          .update({ parent: null });
      await knex(step.table).where(step.where).delete();
      return;
    case 'dropPermissionField': {
      const rows = (await knex('service_permissions')
        .select('id', 'fields')
        .where({ collection: step.collection })) as { id: number; fields: string | null }[];
      for (const row of rows) {
        const fields = String(row.fields ?? '')
          .split(',')
          .map((s) => s.trim());
        if (!fields.includes(step.field)) continue;
        await knex('service_permissions')
          .where({ id: row.id })
          .update({ fields: withoutListItem(row.fields, step.field) });
      }
      return;
    }
  }
}
