/**
 * service_flow_deliveries: the flows' outbox. Rows are inserted in the changing write's transaction; an instance
 * claims due rows with a lease (one UPDATE that takes only rows whose lease is free: the database's row locks make
 * two instances' claims of one row exclusive on every vendor, so no vendor SQL is needed), runs them, and records
 * the outcome only while it still holds the lease. Times are epoch milliseconds.
 */
import type { Database, Executor, Row } from '../connection.js';
import type { Dialect } from '../dialect.js';
import { numberedPlaceholders } from '../question-marks.js';

const TABLE = 'service_flow_deliveries';
const COLUMNS = ['id', 'flow', 'event', 'payload', 'status', 'attempts', 'next_attempt_at', 'created_at', 'updated_at'];
/** Rows per INSERT: 9 values each, well inside every database's parameter limit. */
const ROWS_PER_INSERT = 100;

export interface NewDelivery {
  id: string;
  flow: string;
  event: string;
  payload: string;
}

export interface DeliveryRow {
  id: string;
  flow: string;
  event: string;
  payload: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  locked_by: string | null;
  locked_until: number | null;
  created_at: number;
  updated_at: number;
  delivered_at: number | null;
}

export type DeliveryOutcome = { ok: true } | { ok: false; error: string; retryAt: number | null };

/** `?` markers → the dialect's placeholders, in order. */
function bind(dialect: Dialect, sql: string): string {
  return numberedPlaceholders(sql, (n) => dialect.sql.placeholder(n)).replace(/\{(\w+)\}/g, (_m, name: string) =>
    dialect.sql.quote(name),
  );
}

const num = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

function decode(row: Row): DeliveryRow {
  return {
    id: String(row.id),
    flow: String(row.flow),
    event: String(row.event),
    payload: String(row.payload),
    status: row.status as DeliveryRow['status'],
    attempts: Number(row.attempts),
    next_attempt_at: Number(row.next_attempt_at),
    last_error: row.last_error === null || row.last_error === undefined ? null : String(row.last_error),
    locked_by: row.locked_by === null || row.locked_by === undefined ? null : String(row.locked_by),
    locked_until: num(row.locked_until),
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
    delivered_at: num(row.delivered_at),
  };
}

/** In the write's transaction. */
export async function insertDeliveries(
  tx: Executor,
  dialect: Dialect,
  rows: NewDelivery[],
  now: number,
): Promise<void> {
  for (let at = 0; at < rows.length; at += ROWS_PER_INSERT) {
    const chunk = rows.slice(at, at + ROWS_PER_INSERT);
    const marks = chunk.map(() => `(${COLUMNS.map(() => '?').join(', ')})`).join(', ');
    const params = chunk.flatMap((r) => [r.id, r.flow, r.event, r.payload, 'pending', 0, now, now, now]);
    await tx.query(
      bind(dialect, `insert into {${TABLE}} (${COLUMNS.map((c) => `{${c}}`).join(', ')}) values ${marks}`),
      params,
    );
  }
}

export class FlowDeliveriesRepository {
  constructor(private readonly db: Database) {}

  private run(sql: string, params: unknown[]): Promise<Row[]> {
    return this.db.query(bind(this.db.dialect, sql), params);
  }

  /** Claims up to `batch` due rows for `token` until `now + leaseMs`; the rows claimed (attempts counted). */
  async claim(token: string, now: number, leaseMs: number, batch: number): Promise<DeliveryRow[]> {
    const free = `{status} = 'pending' and {next_attempt_at} <= ? and ({locked_until} is null or {locked_until} < ?)`;
    const due = await this.run(
      `select {id} from {${TABLE}} where ${free} order by {next_attempt_at}, {created_at} limit ${Math.floor(batch)}`,
      [now, now],
    );
    if (due.length === 0) return [];
    const ids = due.map((row) => String(row.id));
    // The lease is re-checked in the UPDATE itself: of two instances racing for a row, only one changes it.
    await this.run(
      `update {${TABLE}} set {locked_by} = ?, {locked_until} = ?, {attempts} = {attempts} + 1, {updated_at} = ?
       where {id} in (${ids.map(() => '?').join(', ')}) and ${free}`,
      [token, now + leaseMs, now, ...ids, now, now],
    );
    // Read back by key (the index), not by token: the ones this claim took.
    const claimed = await this.run(
      `select * from {${TABLE}} where {id} in (${ids.map(() => '?').join(', ')}) and {locked_by} = ?`,
      [...ids, token],
    );
    return claimed.map(decode);
  }

  /** Marks rows delivered in one statement (a turn's successes), those `token` still holds. */
  async delivered(ids: string[], token: string, now: number): Promise<void> {
    if (ids.length === 0) return;
    await this.run(
      `update {${TABLE}} set {status} = 'delivered', {delivered_at} = ?, {updated_at} = ?, {last_error} = null,
       {locked_by} = null, {locked_until} = null where {id} in (${ids.map(() => '?').join(', ')}) and {locked_by} = ?`,
      [now, now, ...ids, token],
    );
  }

  /** Records a run's outcome, if `token` still holds the row's lease (a lapsed lease: another instance has it). */
  async finish(id: string, token: string, outcome: DeliveryOutcome, now: number): Promise<void> {
    if (outcome.ok) {
      await this.run(
        `update {${TABLE}} set {status} = 'delivered', {delivered_at} = ?, {updated_at} = ?, {last_error} = null,
         {locked_by} = null, {locked_until} = null where {id} = ? and {locked_by} = ?`,
        [now, now, id, token],
      );
      return;
    }
    const status = outcome.retryAt === null ? 'failed' : 'pending';
    await this.run(
      `update {${TABLE}} set {status} = ?, {next_attempt_at} = ?, {updated_at} = ?, {last_error} = ?,
       {locked_by} = null, {locked_until} = null where {id} = ? and {locked_by} = ?`,
      [status, outcome.retryAt ?? now, now, outcome.error.slice(0, 2000), id, token],
    );
  }

  async list(filter: { status?: string; flow?: string }, limit: number, offset: number): Promise<DeliveryRow[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.status) (where.push('{status} = ?'), params.push(filter.status));
    if (filter.flow) (where.push('{flow} = ?'), params.push(filter.flow));
    const rows = await this.run(
      `select * from {${TABLE}} ${where.length ? `where ${where.join(' and ')}` : ''}
       order by {created_at} desc, {id} limit ${Math.floor(limit)} offset ${Math.floor(offset)}`,
      params,
    );
    return rows.map(decode);
  }

  async get(id: string): Promise<DeliveryRow | null> {
    const [row] = await this.run(`select * from {${TABLE}} where {id} = ?`, [id]);
    return row ? decode(row) : null;
  }

  /** Due again now, with a fresh count of attempts; false when there is no such row. */
  async replay(id: string, now: number): Promise<boolean> {
    const found = await this.get(id);
    if (!found) return false;
    await this.run(
      `update {${TABLE}} set {status} = 'pending', {attempts} = 0, {next_attempt_at} = ?, {updated_at} = ?,
       {last_error} = null, {locked_by} = null, {locked_until} = null, {delivered_at} = null where {id} = ?`,
      [now, now, id],
    );
    return true;
  }

  /**
   * Deletes up to `batch` delivered rows delivered before `before`; how many. Failed and pending rows stay (a
   * failed one can be replayed). By key, in two statements: MySQL takes no LIMIT in a DELETE with a subquery.
   */
  async pruneDelivered(before: number, batch: number): Promise<number> {
    const rows = await this.run(
      `select {id} from {${TABLE}} where {status} = 'delivered' and {delivered_at} < ? limit ${Math.floor(batch)}`,
      [before],
    );
    if (rows.length === 0) return 0;
    const ids = rows.map((row) => String(row.id));
    await this.run(`delete from {${TABLE}} where {id} in (${ids.map(() => '?').join(', ')})`, ids);
    return ids.length;
  }

  /** Rows by status (the benchmark and the start log). */
  async counts(): Promise<Record<string, number>> {
    const rows = await this.run(`select {status}, count(*) as {n} from {${TABLE}} group by {status}`, []);
    return Object.fromEntries(rows.map((r) => [String(r.status), Number(r.n)]));
  }
}
