/**
 * The audit trail of a write (Directus's activity and revisions): the executor records each item it creates, updates
 * or deletes, with the values it wrote and the item whose payload nested it; before the transaction commits,
 * `writeAuditTrail` turns those records into service_activity rows (one multi-row INSERT per batch) and, for
 * collections whose `accountability` is `all`, service_revisions rows holding the item as read after the change (one
 * SELECT per collection and batch, inside the transaction) and the delta, each linked to its activity and to the
 * revision of the item that nested it. A rolled-back write takes its trail with it; a committed one always has it.
 * Collections with `accountability: null` (and the trail's own tables) are not recorded; `activity` records activity
 * without revisions.
 */
import type { Executor } from '../../db/connection.js';
import type { Dialect } from '../../db/dialect.js';
import type { Key } from '../../plan/mutation-plan.js';
import { FULL_ACCESS } from '../../plan/access.js';
import { planRead } from '../../plan/read-planner.js';
import { keyOfValues } from '../../plan/row-key.js';
import { coerceValue } from '../../plan/value-coercion.js';
import type { WriteContext } from '../../plan/write-context.js';
import type { CollectionOverview, FieldOverview, SchemaOverview } from '../../schema/types.js';
import { compileRead } from '../../sql/read-compiler.js';
import { compileInserts, type WriteHooks } from '../../sql/write-compiler.js';

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
/** Keys per revision read: well inside every database's parameter limit. */
const KEYS_PER_READ = 5_000;

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

function fieldsOf(schema: SchemaOverview, table: string, names: string[]): FieldOverview[] {
  const collection = schema.collections[table];
  if (!collection) throw new Error(`The schema has no ${table}`);
  return names.map((name) => collection.fields[name]!);
}

/** Multi-row INSERTs answering the new rows' ids in row order (ids ascend in insertion order). */
async function insertReturningIds(
  tx: Executor,
  dialect: Dialect,
  schema: SchemaOverview,
  table: string,
  rows: Record<string, unknown>[],
  returning = true,
  shared?: ReadonlySet<string>,
): Promise<number[]> {
  const columns = fieldsOf(schema, table, Object.keys(rows[0]!));
  const id = returning ? schema.collections[table]!.fields.id! : null;
  const ids: number[] = [];
  for (const statement of compileInserts(table, columns, rows, hooksOf(dialect), id, shared)) {
    const returned = await tx.query(statement.sql, statement.params);
    ids.push(...returned.map((row) => Number(row.id)).sort((a, b) => a - b));
  }
  return ids;
}

/** Activity rows for service_activity, one per entry (also used for logins). */
export async function insertActivity(
  tx: Executor,
  dialect: Dialect,
  schema: SchemaOverview,
  rows: { action: string; user: string | null; collection: string; item: string }[],
  client: AuditClient,
  now: Date,
): Promise<number[]> {
  if (rows.length === 0) return [];
  // The logical value the write hooks bind for a timestamp column.
  const timestamp = coerceValue(schema.collections.service_activity!.fields.timestamp!, now.toISOString());
  const full = rows.map((row) => ({
    action: row.action,
    user: row.user,
    timestamp,
    ip: client.ip,
    user_agent: client.userAgent,
    origin: client.origin,
    collection: row.collection,
    item: row.item,
  }));
  const oneUser = rows.every((row) => row.user === rows[0]!.user);
  const shared = oneUser ? SHARED_BY_ACTIVITY : SHARED_BY_CLIENT;
  return insertReturningIds(tx, dialect, schema, 'service_activity', full, true, shared);
}

/** The activity columns every row of one call shares (bound once per statement where the database allows). */
const SHARED_BY_CLIENT: ReadonlySet<string> = new Set(['timestamp', 'ip', 'user_agent', 'origin']);
const SHARED_BY_ACTIVITY: ReadonlySet<string> = new Set([...SHARED_BY_CLIENT, 'user']);

/**
 * The items of `keys` as an admin reads them (every column, wire values), by key as text. Columns only: the o2m
 * alias lists would make the snapshot a nested read per collection, and a revert that PATCHes them would rewrite
 * relations the revision never changed.
 */
async function readAfter(
  tx: Executor,
  dialect: Dialect,
  ctx: WriteContext,
  collection: CollectionOverview,
  keys: Key[],
): Promise<Map<string, unknown>> {
  const found = new Map<string, unknown>();
  const columns = collection.fieldOrder.filter((name) => collection.fields[name]?.schema);
  for (let i = 0; i < keys.length; i += KEYS_PER_READ) {
    const chunk = keys.slice(i, i + KEYS_PER_READ);
    const plan = planRead(
      collection.collection,
      { fields: columns, keys: chunk, limit: chunk.length },
      {
        schema: ctx.schema,
        access: FULL_ACCESS,
        accountability: { ...ctx.accountability, admin: true },
        queryLimitDefault: chunk.length,
        now: ctx.now,
        system: true,
      },
    );
    const { sql, params } = compileRead(plan, dialect.sql);
    const [row] = await tx.query(sql, params);
    const items = JSON.parse((row?.data as string | null | undefined) ?? '[]') as Record<string, unknown>[];
    for (const item of items) {
      const key = keyOfValues(collection, item);
      if (key !== null && key !== undefined) found.set(String(key), item);
    }
  }
  return found;
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

/** The snapshots of every revised item, read per collection. */
async function snapshots(
  tx: Executor,
  dialect: Dialect,
  ctx: WriteContext,
  revised: AuditEntry[],
): Promise<Map<AuditEntry, unknown>> {
  const byCollection = new Map<CollectionOverview, AuditEntry[]>();
  for (const entry of revised) {
    const list = byCollection.get(entry.collection);
    if (list) list.push(entry);
    else byCollection.set(entry.collection, [entry]);
  }
  const out = new Map<AuditEntry, unknown>();
  for (const [collection, entries] of byCollection) {
    const keys = [...new Map(entries.map((e) => [String(e.key), e.key])).values()];
    const found = await readAfter(tx, dialect, ctx, collection, keys);
    for (const entry of entries) out.set(entry, found.get(String(entry.key)) ?? null);
  }
  return out;
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
  const activity = await insertActivity(
    tx,
    dialect,
    ctx.schema,
    entries.map((e) => ({
      action: e.action,
      user: ctx.accountability.user,
      collection: e.collection.collection,
      item: String(e.key),
    })),
    client,
    ctx.now,
  );
  // A revision names its parent's: revisions are inserted a nesting level at a time, parents first.
  const revised = entries.filter((e) => e.action !== 'delete' && accountabilityOf(e.collection) === 'all');
  if (revised.length === 0) return;
  const data = await snapshots(tx, dialect, ctx, revised);
  const activityOf = new Map(entries.map((e, i) => [e, activity[i]!]));
  const revisionOf = new Map<AuditEntry, number>();
  let pending = revised;
  while (pending.length > 0) {
    const waiting = new Set(pending);
    const ready = pending.filter((e) => !e.parent || !waiting.has(e.parent));
    const rows = ready.map((e) => ({
      activity: activityOf.get(e)!,
      collection: e.collection.collection,
      item: String(e.key),
      data: JSON.stringify(data.get(e) ?? null),
      delta: storedDelta(e.collection, e.delta ?? {}),
      parent: e.parent ? (revisionOf.get(e.parent) ?? null) : null,
    }));
    // The last level's ids are named by no other revision: no RETURNING for it.
    const last = ready.length === pending.length;
    const ids = await insertReturningIds(tx, dialect, ctx.schema, 'service_revisions', rows, !last);
    if (last) break;
    ready.forEach((e, i) => revisionOf.set(e, ids[i]!));
    const done = new Set(ready);
    pending = pending.filter((e) => !done.has(e));
  }
}
