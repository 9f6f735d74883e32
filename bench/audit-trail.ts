/**
 * Audit-trail bench: what activity and revisions cost a write. On a throwaway database (SQLite by default;
 * BENCH_DB=pg|mysql with TEST_PG_URL / TEST_MYSQL_URL), with the collections' `accountability` null (no trail) and
 * `all` (activity and revisions), run in interleaved pairs (null, all, null, all, ...) so that a machine whose load
 * changes during the run weighs on both alike: a batch create of BENCH_ITEMS articles in one POST, and a nested write
 * (an author with BENCH_NESTED articles, each with two new tags through the m2m junction). Prints the median time of
 * BENCH_RUNS pairs, the ratio with / without the trail, and the statements each request ran. Then (BENCH_REVISIONS
 * > 0) fills service_revisions with that many rows by one bulk statement and times GET /revisions of one item.
 *   BENCH_ITEMS=10000, BENCH_NESTED=50, BENCH_RUNS=5, BENCH_REVISIONS=0 (e.g. 1000000)
 *   node --import tsx bench/audit-trail.ts
 */
import type { DbClient } from '../src/config/config.js';
import { ADMIN, startTestApp, type TestApp } from '../test/helpers/test-app.js';

const client = (process.env.BENCH_DB ?? 'sqlite3') as DbClient;
const items = Number(process.env.BENCH_ITEMS ?? 10_000);
const nested = Number(process.env.BENCH_NESTED ?? 50);
const runs = Number(process.env.BENCH_RUNS ?? 5);
const revisionRows = Number(process.env.BENCH_REVISIONS ?? 0);
const COLLECTIONS = ['articles', 'authors', 'tags', 'articles_tags'];
/** Revisions per item in the filled table (so one item's read finds this many among all the rows). */
const PER_ITEM = 10;

let serial = 0;

function batchBody(): unknown[] {
  serial += 1;
  return Array.from({ length: items }, (_, i) => ({
    title: `Audit ${serial}-${i}`,
    slug: `audit-${serial}-${i}`,
    rating: i % 5,
    views: i,
  }));
}

function nestedBody(): unknown {
  serial += 1;
  return {
    name: `Audit author ${serial}`,
    articles: Array.from({ length: nested }, (_, i) => ({
      title: `Nested ${serial}-${i}`,
      slug: `nested-${serial}-${i}`,
      tags: [{ tags_id: { name: `t${serial}-${i}-a` } }, { tags_id: { name: `t${serial}-${i}-b` } }],
    })),
  };
}

async function setAccountability(url: string, value: 'all' | null): Promise<void> {
  for (const collection of COLLECTIONS) {
    const res = await fetch(`${url}/collections/${collection}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN.token}` },
      body: JSON.stringify({ meta: { accountability: value } }),
    });
    if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
  }
}

/** One timed request (seconds) and the statements it ran. */
async function once(url: string, path: string, body: unknown, counted: string[]): Promise<[number, string]> {
  const text = JSON.stringify(body);
  counted.length = 0;
  const started = performance.now();
  const res = await fetch(`${url}${path}?fields=id`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN.token}` },
    body: text,
  });
  const answer = await res.text();
  const seconds = (performance.now() - started) / 1000;
  if (res.status !== 200) throw new Error(`${res.status} ${answer.slice(0, 300)}`);
  const counts = new Map<string, number>();
  for (const kind of counted) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return [seconds, [...counts].map(([kind, n]) => `${n} ${kind}`).join(', ')];
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** service_revisions filled with `rows` rows (PER_ITEM per item of articles) by one statement per database. */
async function fillRevisions(t: TestApp, rows: number): Promise<void> {
  const db = t.context.db;
  await db.query(`insert into service_activity (action, collection, item) values ('create', 'articles', '0')`);
  const [first] = await db.query(`select max(id) as id from service_activity`);
  const activity = Number(first!.id);
  const data = `'{"id":1,"title":"Filled"}'`;
  if (client === 'pg') {
    await db.query(
      `insert into service_revisions (activity, collection, item, data, delta) select ${activity}, 'fill', (g / ${PER_ITEM})::text, ${data}, ${data} from generate_series(1, ${rows}) g`,
    );
  } else if (client === 'mysql') {
    await db.query(
      `insert into service_revisions (activity, collection, item, data, delta) select ${activity}, 'fill', cast(floor(seq / ${PER_ITEM}) as char), ${data}, ${data} from seq_1_to_${rows}`,
    );
  } else {
    await db.query(
      `with recursive g(n) as (select 1 union all select n + 1 from g where n < ${rows}) insert into service_revisions (activity, collection, item, data, delta) select ${activity}, 'fill', cast(n / ${PER_ITEM} as text), ${data}, ${data} from g`,
    );
  }
  if (client === 'pg') await db.query('analyze service_revisions');
  if (client === 'mysql') await db.query('analyze table service_revisions');
  if (client === 'sqlite3') await db.query('analyze');
}

async function revisionsRead(t: TestApp, url: string): Promise<Record<string, string | number>> {
  const started = performance.now();
  await fillRevisions(t, revisionRows);
  const filled = performance.now() - started;
  const times: number[] = [];
  let count = 0;
  for (let run = 0; run < Math.max(5, runs); run++) {
    const item = 1 + Math.floor(((run + 1) * revisionRows) / PER_ITEM / 7);
    const begun = performance.now();
    const res = await fetch(
      `${url}/revisions?filter[collection][_eq]=fill&filter[item][_eq]=${item % Math.floor(revisionRows / PER_ITEM)}&sort=-id`,
      { headers: { authorization: `Bearer ${ADMIN.token}` } },
    );
    const answer = (await res.json()) as { data: unknown[] };
    times.push(performance.now() - begun);
    if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(answer).slice(0, 300)}`);
    count = answer.data.length;
  }
  return {
    db: t.testDb.label,
    case: `GET /revisions of 1 item among ${revisionRows}`,
    accountability: `fill ${Math.round(filled)} ms`,
    'median ms': Math.round(median(times) * 10) / 10,
    statements: `${count} revisions answered`,
  };
}

const t = await startTestApp(client, { relations: true, env: { MAX_PAYLOAD_SIZE: '50mb' } });
try {
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  const statements: string[] = [];
  t.context.db.onQuery((sql) => statements.push(sql.trim().split(/\s/)[0]!.toLowerCase()));
  const rows: Record<string, string | number>[] = [];
  const cases = [
    { name: `batch create ${items}`, path: '/items/articles', body: batchBody },
    { name: `nested write 1+${nested}x3`, path: '/items/authors', body: nestedBody },
  ];
  for (const { name, path, body } of cases) {
    const seconds: Record<'null' | 'all', number[]> = { null: [], all: [] };
    const used: Record<'null' | 'all', string> = { null: '', all: '' };
    for (let run = 0; run < runs; run++) {
      for (const accountability of [null, 'all'] as const) {
        await setAccountability(url, accountability);
        const [time, kinds] = await once(url, path, body(), statements);
        seconds[String(accountability) as 'null' | 'all'].push(time);
        used[String(accountability) as 'null' | 'all'] = kinds;
      }
    }
    for (const key of ['null', 'all'] as const) {
      rows.push({
        db: t.testDb.label,
        case: name,
        accountability: key,
        'median ms': Math.round(median(seconds[key]) * 1000),
        statements: used[key],
      });
    }
    const ratios = seconds.all.map((time, i) => time / seconds.null[i]!);
    rows.push({
      db: t.testDb.label,
      case: name,
      accountability: 'all / null',
      'median ms': Math.round((median(seconds.all) / median(seconds.null)) * 100) / 100,
      statements: `pairwise median ${Math.round(median(ratios) * 100) / 100}`,
    });
  }
  if (revisionRows > 0) rows.push(await revisionsRead(t, url));
  console.table(rows);
} finally {
  await t.close();
}
