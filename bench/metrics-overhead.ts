/**
 * What METRICS_ENABLED costs per request: two apps on the same SQLite fixture, one with metrics off and one on,
 * driven in-process with Fastify `inject` in alternating rounds, and the process's CPU time per request compared
 * (CPU time, not wall time: the shared machine's load moves wall times far more than the hook does). Reads inline
 * (DB_READ_THREADS=0) so that the statement's CPU is counted in this process. Loopback-free, no child processes.
 *   [METRICS_SERVICES=http,...] node --import tsx bench/metrics-overhead.ts [requests per round (3000)] [rounds (6)]
 */
import { startTestApp, type TestApp } from '../test/helpers/test-app.js';

const PATHS = ['/items/authors?limit=10', '/items/articles/1?fields=id,title,author.name', '/server/ping'];

async function round(t: TestApp, requests: number): Promise<number> {
  const started = process.cpuUsage();
  for (let i = 0; i < requests; i++) {
    const res = await t.request({ method: 'GET', url: PATHS[i % PATHS.length]! });
    if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`);
  }
  const used = process.cpuUsage(started);
  return (used.user + used.system) / requests;
}

const requests = Number(process.argv[2] ?? 3000);
const rounds = Number(process.argv[3] ?? 6);
const env = { DB_READ_THREADS: '0' };
const off = await startTestApp('sqlite3', { env });
const on = await startTestApp('sqlite3', {
  env: {
    ...env,
    METRICS_ENABLED: 'true',
    METRICS_TOKENS: 'bench-token-0123456789abcdef',
    // Which groups are on (all by default), to find what costs what.
    ...(process.env.METRICS_SERVICES ? { METRICS_SERVICES: process.env.METRICS_SERVICES } : {}),
  },
});
try {
  await round(off, 500);
  await round(on, 500);
  const results: { off: number[]; on: number[] } = { off: [], on: [] };
  for (let r = 0; r < rounds; r++) {
    // Alternating which goes first, so that neither always follows the other's garbage.
    const order = r % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const);
    for (const side of order) results[side].push(await round(side === 'off' ? off : on, requests));
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const scrape = await on.request({ method: 'GET', url: '/metrics' });
  const series = scrape.body.split('\n').filter((l) => l && !l.startsWith('#')).length;
  const scrapeCpu = process.cpuUsage();
  for (let i = 0; i < 50; i++) await on.request({ method: 'GET', url: '/metrics' });
  const scrapeUs = (process.cpuUsage(scrapeCpu).user + process.cpuUsage(scrapeCpu).system) / 50;
  console.log(`CPU µs per request, ${rounds} rounds × ${requests} requests (${PATHS.join(', ')}):`);
  console.log(
    `  metrics off: ${results.off.map((v) => v.toFixed(0)).join(' ')} (median ${median(results.off).toFixed(1)})`,
  );
  console.log(
    `  metrics on:  ${results.on.map((v) => v.toFixed(0)).join(' ')} (median ${median(results.on).toFixed(1)})`,
  );
  const delta = median(results.on) - median(results.off);
  console.log(`  difference: ${delta.toFixed(1)} µs (${((delta / median(results.off)) * 100).toFixed(1)} %)`);
  console.log(`  one scrape: ${series} samples, ${scrapeUs.toFixed(0)} µs CPU`);
} finally {
  await on.close();
  await off.close();
}
