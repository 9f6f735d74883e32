/**
 * The audit trail of a write (Directus's activity and revisions): the executor records each item it creates, updates
 * or deletes, with the values it wrote and the item whose payload nested it; before the transaction commits,
 * `writeAuditTrail` turns those records into service_activity rows and, for collections whose `accountability` is
 * `all`, service_revisions rows holding the item as it is after the change (built by the database in the INSERT,
 * inside the transaction) and the delta, each linked to its activity and to the revision of the item that nested it.
 * Each is an INSERT ... SELECT over the rows as one JSON parameter (sql/trail-compiler.ts). A rolled-back write takes
 * its trail with it; a committed one always has it. Collections with `accountability: null` (and the trail's own
 * tables) are not recorded; `activity` records activity without revisions. */
import type { Executor } from '../../db/connection.js';
import type { Dialect } from '../../db/dialect.js';
import type { Key } from '../../plan/mutation-plan.js';
import { FULL_ACCESS } from '../../plan/access.js';
import type { ReadLevel } from '../../plan/read-plan.js';
import { planRead } from '../../plan/read-planner.js';
import { keyFieldsOf, keyParts } from '../../plan/row-key.js';
import { coerceValue } from '../../plan/value-coercion.js';
import type { WriteContext } from '../../plan/write-context.js';
import type { CollectionOverview, FieldOverview, SchemaOverview } from '../../schema/types.js';
import {
  compileTrailInserts,
  compileTrailWith,
  ROWS_PER_STATEMENT,
  snapshotExpression,
  type TrailRevisionRows,
  type TrailRows,
} from '../../sql/trail-compiler.js';
import type { WriteHooks } from '../../sql/write-compiler.js';

export type AuditAction = 'create' | 'update' | 'delete';

/** Where a write came from, as service_activity records it. */
export interface AuditClient {
  ip: string | null;
  userAgent: string | null;
  origin: string | null;
}

export interface AuditEntry {
  action: AuditAction;
  collection: CollectionOverview;
  key: Key;
  /** The values the write set on the item (null for a delete). */
  delta: Record<string, unknown> | null;
  /** The entry of the item whose payload nested this one (its revision is this one's `parent`). */
  parent: AuditEntry | null;
}

const CONCEALED = '**********';

/** How a collection is audited: Directus's `accountability` meta (`all` when the collection has none). */
export function accountabilityOf(collection: CollectionOverview): 'all' | 'activity' | null {
  if (collection.collection === 'service_activity' || collection.collection === 'service_revisions') return null;
  if (!collection.meta) return 'all';
  const value = collection.meta.accountability;
  return value === 'activity' ? 'activity' : value === null ? null : 'all';
}

/** The items one transaction changed, in the order the executor changed them. */
export class AuditRecorder {
  readonly entries: AuditEntry[] = [];

  record(entry: AuditEntry): AuditEntry {
    if (accountabilityOf(entry.collection) !== null) this.entries.push(entry);
    return entry;
  }

  /** Moves the entries of `other` (an import batch's, once its savepoint is released) here. */
  take(other: AuditRecorder): void {
    this.entries.push(...other.entries.splice(0));
  }
}

function hooksOf(dialect: Dialect): WriteHooks {
  return { sql: dialect.sql, write: dialect.write };
}

function fieldsOf(schema: SchemaOverview, table: string, names: readonly string[]): FieldOverview[] {
  const collection = schema.collections[table];
  if (!collection) throw new Error(`The schema has no ${table}`);
  return names.map((name) => collection.fields[name]!);
}

/** Runs trail INSERTs, answering the new rows' ids in row order (ids ascend in insertion order). */
async function run(tx: Executor, statements: { sql: string; params: unknown[] }[]): Promise<number[]> {
  const ids: number[] = [];
  for (const statement of statements) {
    const returned = await tx.query(statement.sql, statement.params);
    ids.push(...returned.map((row) => Number(row.id)).sort((a, b) => a - b));
  }
  return ids;
}

/** The activity columns every row of one call shares: one constant row in the INSERT, not a value per row. */
const SHARED_BY_CLIENT = ['timestamp', 'ip', 'user_agent', 'origin'] as const;
const PER_ACTIVITY = ['action', 'user', 'collection', 'item'] as const;

/** Activity rows for service_activity, one per entry (also used for logins). */
export async function insertActivity(
  tx: Executor,
  dialect: Dialect,
  schema: SchemaOverview,
  rows: ActivityRow[],
  client: AuditClient,
  now: Date,
): Promise<number[]> {
  if (rows.length === 0) return [];
  const trail = activityTrail(dialect, schema, rows, client, now);
  const id = schema.collections.service_activity!.fields.id!;
  return run(tx, compileTrailInserts('service_activity', trail, hooksOf(dialect), id));
}

interface ActivityRow {
  action: string;
  user: string | null;
  collection: string;
  item: string;
}

/** Activity rows as the trail compiler takes them: what they share once, then each row's own values. */
function activityTrail(
  dialect: Dialect,
  schema: SchemaOverview,
  rows: ActivityRow[],
  client: AuditClient,
  now: Date,
): TrailRows {
  const activity = schema.collections.service_activity!;
  // The logical value the write hooks bind for a timestamp column.
  const timestamp = coerceValue(activity.fields.timestamp!, now.toISOString());
  const shared = fieldsOf(schema, 'service_activity', SHARED_BY_CLIENT);
  const columns = fieldsOf(schema, 'service_activity', PER_ACTIVITY);
  const { bind } = dialect.write;
  return {
    shared: shared.map((field, i) => [field, [timestamp, client.ip, client.userAgent, client.origin][i]]),
    columns,
    rows: rows.map((row) => [row.action, row.user, row.collection, row.item].map((v, i) => bind(columns[i]!, v))),
  };
}

/** An admin read of every column of the collection (wire values), the level a revision's `data` is built from. */
function snapshotLevel(ctx: WriteContext, collection: CollectionOverview): ReadLevel {
  // Columns only: the o2m alias lists would make the snapshot a nested read per collection, and a revert that
  // PATCHes them would rewrite relations the revision never changed.
  const columns = collection.fieldOrder.filter((name) => collection.fields[name]?.schema);
  return planRead(
    collection.collection,
    { fields: columns, limit: 1 },
    {
      schema: ctx.schema,
      access: FULL_ACCESS,
      accountability: { ...ctx.accountability, admin: true },
      queryLimitDefault: 1,
      now: ctx.now,
      system: true,
    },
  );
}

const concealed = new WeakMap<CollectionOverview, boolean>();

function concealing(collection: CollectionOverview): boolean {
  let known = concealed.get(collection);
  if (known === undefined) {
    known = Object.values(collection.fields).some((field) => field.special.includes('conceal'));
    concealed.set(collection, known);
  }
  return known;
}

/** A delta as stored: concealed fields (passwords, tokens) masked, as reads show them. */
function storedDelta(collection: CollectionOverview, delta: Record<string, unknown>): string {
  if (!concealing(collection)) return JSON.stringify(delta);
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [name, value] of Object.entries(delta)) {
    const field = collection.fields[name];
    out[name] = field?.special.includes('conceal') && value !== null ? CONCEALED : value;
  }
  return JSON.stringify(out);
}

/** A revisions INSERT is of one collection: its name is one value of the constant row, not a column of each row. */
const PER_REVISION = ['activity', 'item', 'delta', 'parent'] as const;

/**
 * The revisions of `entries` (one nesting level), one INSERT ... SELECT per collection whose `data` the database
 * builds from the item as it is now; answers their ids in the entries' order (when `returning`).
 */
async function insertRevisions(
  tx: Executor,
  dialect: Dialect,
  ctx: WriteContext,
  entries: AuditEntry[],
  rowOf: (entry: AuditEntry) => unknown[],
  returning: boolean,
): Promise<Map<AuditEntry, number>> {
  const revisions = ctx.schema.collections.service_revisions!;
  const columns = fieldsOf(ctx.schema, 'service_revisions', PER_REVISION);
  const ids = new Map<AuditEntry, number>();
  for (const [collection, list] of byCollection(entries)) {
    const keys = keyFieldsOf(collection);
    const level = snapshotLevel(ctx, collection);
    const trail: TrailRows = {
      shared: [[revisions.fields.collection!, collection.collection]],
      columns,
      rows: list.map((entry) => {
        const parts = keyParts(collection, entry.key).map((part, i) => dialect.write.bind(keys[i]!, part));
        return [...rowOf(entry).map((v, i) => dialect.write.bind(columns[i]!, v)), ...parts];
      }),
    };
    const statements = compileTrailInserts(
      'service_revisions',
      trail,
      hooksOf(dialect),
      returning ? revisions.fields.id! : null,
      { column: 'data', keys, expression: (st, rows) => snapshotExpression(level, keys, st, rows, dialect.write) },
    );
    const returned = await run(tx, statements);
    list.forEach((entry, i) => ids.set(entry, returned[i]!));
  }
  return ids;
}

function byCollection(entries: AuditEntry[]): Map<CollectionOverview, AuditEntry[]> {
  const out = new Map<CollectionOverview, AuditEntry[]>();
  for (const entry of entries) {
    const list = out.get(entry.collection);
    if (list) list.push(entry);
    else out.set(entry.collection, [entry]);
  }
  return out;
}

/** The revised entries by nesting level, parents' level first (a revision names its parent's id). */
function levelsOf(revised: AuditEntry[]): AuditEntry[][] {
  // A batch of top-level items is one level (the sets below cost ~1 ms per 2,000 entries).
  if (!revised.some((e) => e.parent)) return revised.length ? [revised] : [];
  const levels: AuditEntry[][] = [];
  let pending = revised;
  while (pending.length > 0) {
    const waiting = new Set(pending);
    const ready = pending.filter((e) => !e.parent || !waiting.has(e.parent));
    levels.push(ready);
    const done = new Set(ready);
    pending = pending.filter((e) => !done.has(e));
  }
  return levels;
}

function activityRows(ctx: WriteContext, entries: AuditEntry[]): ActivityRow[] {
  return entries.map((e) => ({
    action: e.action,
    user: ctx.accountability.user,
    collection: e.collection.collection,
    item: String(e.key),
  }));
}

/** Writes the trail of the recorded entries; call inside the write's transaction, after its statements. */
export async function writeAuditTrail(
  tx: Executor,
  dialect: Dialect,
  ctx: WriteContext,
  recorder: AuditRecorder,
): Promise<void> {
  const entries = recorder.entries.splice(0);
  if (entries.length === 0 || ctx.trail === false) return;
  const client = ctx.client ?? { ip: ctx.accountability.ip, userAgent: null, origin: null };
  const revisedOnes = (list: AuditEntry[]) =>
    list.filter((e) => e.action !== 'delete' && accountabilityOf(e.collection) === 'all');
  const revised = revisedOnes(entries);
  const levels = levelsOf(revised);
  if (dialect.write.insertsInWith && (entries.length <= ROWS_PER_STATEMENT || levels.length === 1)) {
    // Without nesting, a larger write's trail is one statement per ROWS_PER_STATEMENT entries.
    for (let i = 0; i < entries.length; i += ROWS_PER_STATEMENT) {
      const part = entries.length <= ROWS_PER_STATEMENT ? entries : entries.slice(i, i + ROWS_PER_STATEMENT);
      const partLevels = part === entries ? levels : levelsOf(revisedOnes(part));
      await tx.query(...trailInOneStatement(dialect, ctx, part, partLevels, client));
    }
    return;
  }
  const activity = await insertActivity(tx, dialect, ctx.schema, activityRows(ctx, entries), client, ctx.now);
  if (revised.length === 0) return;
  const activityOf = new Map(entries.map((e, i) => [e, activity[i]!]));
  const revisionOf = new Map<AuditEntry, number>();
  const rowOf = (e: AuditEntry): unknown[] => [
    activityOf.get(e)!,
    String(e.key),
    storedDelta(e.collection, e.delta ?? {}),
    e.parent ? (revisionOf.get(e.parent) ?? null) : null,
  ];
  for (const [index, ready] of levels.entries()) {
    // The last level's ids are named by no other revision: no RETURNING for it.
    const last = index === levels.length - 1;
    const ids = await insertRevisions(tx, dialect, ctx, ready, rowOf, !last);
    for (const [e, id] of ids) revisionOf.set(e, id);
  }
}

const BY_POSITION = ['collection', 'item', 'delta'] as const;

/**
 * The trail as one statement (`insertsInWith`): each revision names its activity by its entry's position and its
 * parent by the (INSERT, position) of the parent's revision, which the database turns into ids inside the statement.
 */
function trailInOneStatement(
  dialect: Dialect,
  ctx: WriteContext,
  entries: AuditEntry[],
  levels: AuditEntry[][],
  client: AuditClient,
): [string, unknown[]] {
  const { bind } = dialect.write;
  const activity = activityTrail(dialect, ctx.schema, activityRows(ctx, entries), client, ctx.now);
  const position = new Map(entries.map((e, i) => [e, i + 1]));
  const revisionAt = new Map<AuditEntry, [number, number]>();
  const columns = fieldsOf(ctx.schema, 'service_revisions', BY_POSITION);
  const statements: TrailRevisionRows[] = [];
  for (const level of levels) {
    for (const [collection, list] of byCollection(level)) {
      const keys = keyFieldsOf(collection);
      const snapshot = snapshotLevel(ctx, collection);
      const rows = list.map((entry) => {
        const parent = entry.parent ? revisionAt.get(entry.parent) : undefined;
        const values = [collection.collection, String(entry.key), storedDelta(collection, entry.delta ?? {})];
        const parts = keyParts(collection, entry.key).map((part, k) => bind(keys[k]!, part));
        return [
          position.get(entry)!,
          ...(parent ?? [null, null]),
          ...values.map((v, k) => bind(columns[k]!, v)),
          ...parts,
        ];
      });
      const index = statements.length;
      list.forEach((entry, i) => revisionAt.set(entry, [index, i + 1]));
      statements.push({
        columns,
        keys,
        rows,
        data: (st, r) => snapshotExpression(snapshot, keys, st, r, dialect.write),
      });
    }
  }
  const { sql, params } = compileTrailWith(
    activity,
    statements,
    { activity: 'activity', parent: 'parent', data: 'data' },
    hooksOf(dialect),
  );
  return [sql, params];
}
