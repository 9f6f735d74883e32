/**
 * The journal of a schema change whose DDL commits statement by statement (MySQL/MariaDB): one row per change in
 * service_schema_journal, holding the undo of every statement it has run (`undo`) and of the one it is running
 * (`pending`: that one may not have happened). The row is written before each statement and deleted in the
 * transaction that writes the change's metadata, so a change is either committed whole (no row) or journaled: a
 * process killed anywhere in between leaves the row, and the next start or change undoes what it did.
 */
import type { Knex } from 'knex';
import type { DdlStatement } from './schema-ddl.js';

const TABLE = 'service_schema_journal';

/** A statement as the journal keeps it (what runs it again). */
type Kept = Pick<DdlStatement, 'sql' | 'params'>;

export interface JournalEntry {
  id: number;
  change: string;
  undo: Kept[];
  pending: Kept[];
}

function kept(statements: DdlStatement[]): string {
  return JSON.stringify(statements.map(({ sql, params }) => (params?.length ? { sql, params } : { sql })));
}

/** Starts a change's entry; returns its id. */
export async function openJournal(knex: Knex, change: string): Promise<number> {
  const [id] = await knex(TABLE).insert({ change: change.slice(0, 255), undo: '[]', pending: null });
  return Number(id);
}

/** Notes, before a statement runs, the undo of what has run (`undo`) and of that statement (`pending`). */
export async function noteJournal(
  knex: Knex,
  id: number,
  undo: DdlStatement[],
  pending: DdlStatement[],
): Promise<void> {
  await knex(TABLE)
    .where({ id })
    .update({ undo: kept(undo), pending: pending.length ? kept(pending) : null });
}

/** Ends a change's entry: in the metadata's transaction when it commits, or once a failed change is undone. */
export async function closeJournal(knex: Knex, id: number): Promise<void> {
  await knex(TABLE).where({ id }).delete();
}

/** The entries of changes cut short, latest first. */
export async function readJournal(knex: Knex): Promise<JournalEntry[]> {
  const rows = (await knex(TABLE).select('id', 'change', 'undo', 'pending').orderBy('id', 'desc')) as {
    id: number;
    change: string;
    undo: string;
    pending: string | null;
  }[];
  return rows.map((row) => ({
    id: Number(row.id),
    change: row.change,
    undo: statements(row.undo),
    pending: statements(row.pending),
  }));
}

function statements(text: string | null): Kept[] {
  return text ? (JSON.parse(text) as Kept[]) : [];
}
