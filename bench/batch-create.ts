/**
 * Batch-create bench: POST /items/articles with 10,000 items in one request over loopback, on a throwaway database
 * (SQLite by default; BENCH_DB=pg|mysql with TEST_PG_URL / TEST_MYSQL_URL). Prints items/s (median of the runs)
 * and the statements each request ran, for the response re-read with `fields=id` and with every field.
 *   BENCH_ITEMS=10000, BENCH_RUNS=5
 *   node --import tsx bench/batch-create.ts
 */
import type { DbClient } from '../src/config/config.js';
import { ADMIN, startTestApp } from '../test/helpers/test-app.js';

const client = (process.env.BENCH_DB ?? 'sqlite3') as DbClient;
const items = Number(process.env.BENCH_ITEMS ?? 10_000);
const runs = Number(process.env.BENCH_RUNS ?? 5);

const t = await startTestApp(client, { env: { MAX_PAYLOAD_SIZE: '50mb' } });
try {
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  let statements: string[] = [];
  t.context.db.onQuery((sql) => statements.push(sql.split(' ')[0]!.toLowerCase()));
  let batch = 0;

  const results: Record<string, string | number>[] = [];
  for (const fields of ['id', '*']) {
    const seconds: number[] = [];
    let used = '';
    for (let run = 0; run < runs; run++) {
      batch += 1;
      const body = JSON.stringify(
        Array.from({ length: items }, (_, i) => ({
          title: `Bench ${batch}-${i}`,
          slug: `bench-${batch}-${i}`,
          status: 'draft',
          rating: i % 5,
          views: i,
          price: '9.99',
        })),
      );
      statements = [];
      const started = performance.now();
      const res = await fetch(`${url}/items/articles?fields=${fields}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN.token}` },
        body,
      });
      const text = await res.text();
      const elapsed = (performance.now() - started) / 1000;
      if (res.status !== 200) throw new Error(`${res.status} ${text.slice(0, 300)}`);
      seconds.push(elapsed);
      const counts = new Map<string, number>();
      for (const kind of statements) counts.set(kind, (counts.get(kind) ?? 0) + 1);
      used = [...counts].map(([kind, n]) => `${n} ${kind}`).join(', ');
    }
    seconds.sort((a, b) => a - b);
    const median = seconds[Math.floor(seconds.length / 2)]!;
    results.push({
      db: t.testDb.label,
      items,
      fields: fields,
      'median ms': Math.round(median * 1000),
      'items/s': Math.round(items / median),
      statements: used,
    });
  }
  console.table(results);
} finally {
  await t.close();
}
