/**
 * `npm run bench`: a Strata on a throwaway database (SQLite by default; BENCH_DB=pg|mysql with TEST_PG_URL /
 * TEST_MYSQL_URL) with generated rows, loaded by autocannon over loopback. Bounded in time; prints a table.
 *   BENCH_DURATION=5 (seconds per scenario), BENCH_CONNECTIONS=10, BENCH_ROWS=5000
 */
import autocannon from 'autocannon';
import type { DbClient } from '../src/config/config.js';
import { startTestApp, ADMIN } from '../test/helpers/test-app.js';
import { knexFor } from '../test/helpers/test-db.js';

const client = (process.env.BENCH_DB ?? 'sqlite3') as DbClient;
const duration = Number(process.env.BENCH_DURATION ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const rows = Number(process.env.BENCH_ROWS ?? 5000);

const scenarios: [string, string][] = [
  ['ping', '/server/ping'],
  ['item by key', '/items/articles/42'],
  ['list 25, 5 fields', '/items/articles?fields=id,title,status,rating,publish_date&limit=25'],
  ['list 100, all fields', '/items/articles?limit=100'],
  ['filter + sort + meta', '/items/articles?filter[status][_eq]=published&filter[rating][_gte]=3&sort=-publish_date&limit=25&meta=filter_count'],
  ['search', '/items/articles?search=lorem&limit=25'],
];

async function seed(t: Awaited<ReturnType<typeof startTestApp>>): Promise<void> {
  const k = knexFor(t.testDb);
  try {
    const statuses = ['published', 'draft', 'archived'];
    const batch: Record<string, unknown>[] = [];
    for (let i = 0; i < rows; i++) {
      batch.push({
        title: `Article ${i} lorem ${i % 97}`,
        slug: `article-${i}`,
        body: `Body of article ${i}`,
        status: statuses[i % 3],
        rating: i % 6,
        views: i * 10,
        price: (i % 1000) / 10,
        score: i / 7,
        published: i % 2 === 0,
        publish_date: `2024-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`,
        author: (i % 3) + 1,
      });
    }
    await k.batchInsert('articles', batch, 500);
  } finally {
    await k.destroy();
  }
}

const t = await startTestApp(client);
try {
  await seed(t);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const port = (t.app.server.address() as { port: number }).port;
  const results: Record<string, string | number>[] = [];
  for (const [name, path] of scenarios) {
    const result = await autocannon({
      url: `http://127.0.0.1:${port}${path}`,
      connections,
      duration,
      // The load generator runs in its own thread so it does not share the server's event loop.
      workers: 1,
      headers: { authorization: `Bearer ${ADMIN.token}` },
    });
    results.push({
      scenario: name,
      'req/s': Math.round(result.requests.average),
      'p50 ms': result.latency.p50,
      'p99 ms': result.latency.p99,
      non2xx: result.non2xx,
    });
  }
  console.log(`Strata on ${t.testDb.label}, ${rows} articles, ${connections} connections, ${duration}s each`);
  console.table(results);
} finally {
  await t.close();
}
