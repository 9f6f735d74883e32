/**
 * Audit-trail floor: what the trail's rows cost the database however they are sent. After one real batch create of
 * BENCH_ITEMS articles with `accountability: all` (BENCH_DB=sqlite3|pg|mysql, as bench/audit-trail.ts), replays in
 * transactions that are rolled back, BENCH_RUNS times each (median):
 *   - the items' INSERT as the write ran it (its slugs changed, they are unique);
 *   - the trail's statements as the write ran them, together and each alone (after the ones before it, untimed);
 *   - a bare multi-row INSERT ... VALUES of the same activity rows, and of the same revision rows with their `data`
 *     and `delta` as stored (no JSON parameter, no `data` built, the ids the write gave them): the least the rows cost.
 *   node --import tsx bench/audit-trail-floor.ts
 */
import type { DbClient } from '../src/config/config.js';
import type { Executor } from '../src/db/connection.js';
import { ADMIN, startTestApp } from '../test/helpers/test-app.js';

const client = (process.env.BENCH_DB ?? 'sqlite3') as DbClient;
const items = Number(process.env.BENCH_ITEMS ?? 10_000);
const runs = Number(process.env.BENCH_RUNS ?? 5);

class Rollback extends Error {}

const t = await startTestApp(client, { relations: true, env: { MAX_PAYLOAD_SIZE: '50mb' } });
const db = t.context.db;
const q = (name: string) => (client === 'mysql' ? `\`${name}\`` : `"${name}"`);

/** Median ms of `work` in a transaction rolled back each time. */
async function timed(
  work: (tx: Executor) => Promise<unknown>,
  prepare?: (tx: Executor) => Promise<unknown>,
): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    try {
      await db.transaction(async (tx) => {
        if (prepare) await prepare(tx);
        const started = performance.now();
        await work(tx);
        times.push(performance.now() - started);
        throw new Rollback();
      });
    } catch (error) {
      if (!(error instanceof Rollback)) throw error;
    }
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

/** Multi-row INSERT ... VALUES of `rows`, as many statements as the placeholders allow. */
async function bare(tx: Executor, table: string, rows: Record<string, unknown>[]): Promise<void> {
  const columns = Object.keys(rows[0]!);
  const per = Math.floor(30_000 / columns.length);
  for (let i = 0; i < rows.length; i += per) {
    const chunk = rows.slice(i, i + per);
    let n = 0;
    const mark = () => (client === 'pg' ? `$${++n}` : '?');
    const values = chunk.map(() => `(${columns.map(mark).join(', ')})`).join(', ');
    const params = chunk.flatMap((row) => columns.map((c) => row[c]));
    await tx.query(`insert into ${q(table)} (${columns.map(q).join(', ')}) values ${values}`, params);
  }
}

/** Each trail statement alone (the ones before it run first, untimed: the revisions name the activity rows). */
async function eachStatement(trail: { sql: string; params: readonly unknown[] }[]): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  if (trail.length < 2) return out;
  for (const [i, { sql, params }] of trail.entries()) {
    const table = /service_(activity|revisions)/.exec(sql)![0];
    const before = async (tx: Executor) => {
      for (const earlier of trail.slice(0, i)) await tx.query(earlier.sql, [...earlier.params]);
    };
    out[`  statement ${i + 1}: ${table}`] = await timed((tx) => tx.query(sql, [...params]), before);
    const dataless = withoutData(sql);
    if (dataless)
      out[`  statement ${i + 1}, data as 'null'`] = await timed((tx) => tx.query(dataless, [...params]), before);
  }
  return out;
}

/** The statement with each revision's `data` (`coalesce((select ...), 'null')`) replaced by the text `null`. */
function withoutData(sql: string): string | null {
  const start = sql.indexOf('coalesce((select ');
  if (start < 0) return null;
  let depth = 0;
  let quoted: string | null = null;
  for (let i = start; i < sql.length; i++) {
    const c = sql[i]!;
    if (quoted) {
      if (c === quoted) quoted = null;
    } else if (c === "'" || c === '"' || c === '`') quoted = c;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return `${sql.slice(0, start)}'null'${sql.slice(i + 1)}`;
  }
  return null;
}

try {
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  const seen: { sql: string; params: readonly unknown[] }[] = [];
  const stop = db.onQuery((sql, params) => seen.push({ sql, params }));
  const body = Array.from({ length: items }, (_, i) => ({
    title: `Floor ${i}`,
    slug: `floor-${i}`,
    rating: i % 5,
    views: i,
  }));
  const res = await fetch(`${url}/items/articles?fields=id`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN.token}` },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`${res.status} ${(await res.text()).slice(0, 300)}`);
  stop();
  const writes = seen.filter(({ sql }) => /^\s*insert into .articles./i.test(sql));
  const trail = seen.filter(({ sql }) => /service_(activity|revisions)/.test(sql));
  const renamed = (params: readonly unknown[]) =>
    params.map((p) => (typeof p === 'string' && p.startsWith('floor-') ? `again-${p}` : p));
  const activity = await db.query(
    `select ${['timestamp', 'ip', 'user_agent', 'origin', 'action', 'user', 'collection', 'item'].map(q).join(', ')} from ${q('service_activity')} where ${q('collection')} = 'articles'`,
  );
  const revisions = await db.query(
    `select ${['activity', 'collection', 'item', 'data', 'delta', 'parent'].map(q).join(', ')} from ${q('service_revisions')} where ${q('collection')} = 'articles'`,
  );
  const figures = {
    'items INSERT as the write': await timed(async (tx) => {
      for (const { sql, params } of writes) await tx.query(sql, renamed(params));
    }),
    [`trail as the write (${trail.length} statements)`]: await timed(async (tx) => {
      for (const { sql, params } of trail) await tx.query(sql, [...params]);
    }),
    ...(await eachStatement(trail)),
    'bare activity INSERT ... VALUES': await timed((tx) => bare(tx, 'service_activity', activity)),
    'bare revisions INSERT ... VALUES': await timed((tx) => bare(tx, 'service_revisions', revisions)),
  };
  console.table(
    Object.entries(figures).map(([statement, ms]) => ({ db: t.testDb.label, statement, 'median ms': Math.round(ms) })),
  );
} finally {
  await t.close();
}
