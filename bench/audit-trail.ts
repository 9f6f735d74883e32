/**
 * Audit-trail bench: what activity and revisions cost a write. On a throwaway database (SQLite by default;
 * BENCH_DB=pg|mysql with TEST_PG_URL / TEST_MYSQL_URL), with the collections' `accountability` null (no trail) and
 * then `all` (activity and revisions): a batch create of BENCH_ITEMS articles in one POST, and a nested write (an
 * author with BENCH_NESTED articles, each with two new tags through the m2m junction). Prints the median time of
 * BENCH_RUNS runs, the ratio with / without the trail, and the statements each request ran.
 *   BENCH_ITEMS=10000, BENCH_NESTED=50, BENCH_RUNS=5
 *   node --import tsx bench/audit-trail.ts
 */
import type { DbClient } from '../src/config/config.js';
import { ADMIN, startTestApp } from '../test/helpers/test-app.js';

const client = (process.env.BENCH_DB ?? 'sqlite3') as DbClient;
const items = Number(process.env.BENCH_ITEMS ?? 10_000);
const nested = Number(process.env.BENCH_NESTED ?? 50);
const runs = Number(process.env.BENCH_RUNS ?? 5);
const COLLECTIONS = ['articles', 'authors', 'tags', 'articles_tags'];

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

async function measure(url: string, path: string, body: () => unknown, counted: string[]): Promise<[number, string]> {
  const seconds: number[] = [];
  let used = '';
  for (let run = 0; run < runs; run++) {
    const text = JSON.stringify(body());
    counted.length = 0;
    const started = performance.now();
    const res = await fetch(`${url}${path}?fields=id`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN.token}` },
      body: text,
    });
    const answer = await res.text();
    seconds.push((performance.now() - started) / 1000);
    if (res.status !== 200) throw new Error(`${res.status} ${answer.slice(0, 300)}`);
    const counts = new Map<string, number>();
    for (const kind of counted) counts.set(kind, (counts.get(kind) ?? 0) + 1);
    used = [...counts].map(([kind, n]) => `${n} ${kind}`).join(', ');
  }
  seconds.sort((a, b) => a - b);
  return [seconds[Math.floor(seconds.length / 2)]!, used];
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
    const medians: number[] = [];
    for (const accountability of [null, 'all'] as const) {
      await setAccountability(url, accountability);
      const [median, used] = await measure(url, path, body, statements);
      medians.push(median);
      rows.push({
        db: t.testDb.label,
        case: name,
        accountability: String(accountability),
        'median ms': Math.round(median * 1000),
        statements: used,
      });
    }
    rows.push({ db: t.testDb.label, case: name, accountability: 'all / null', 'median ms': medians[1]! / medians[0]! });
  }
  console.table(rows);
} finally {
  await t.close();
}
