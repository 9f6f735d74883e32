/**
 * `npm run bench -- --fanout`: realtime fan-out. Strata (bench/server.ts) with WebSockets on, an empty `authors`
 * table, and BENCH_FANOUT_SUBSCRIBERS /websocket subscribers (bench/fanout-clients.ts, another process) on it: nine in
 * ten as ten users of one role whose policy reads `id,name,bio` of active authors, one in ten as the admin, all with
 * the same query — two groups of alike subscribers in the hub. The bench then creates BENCH_FANOUT_RATE authors per
 * second through REST for BENCH_DURATION seconds (open loop: one request every 1/rate s, whatever the answers) and
 * measures, per delivered message, the time from the commit (the Strata process's emit of the change event, right
 * after the commit) to its arrival at the subscriber, plus Strata's CPU time and peak RSS over the writes.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { DbClient } from '../src/config/config.js';
import { readConfig } from '../src/config/config.js';
import { createAppContext } from '../src/app/app-context.js';
import { ADMIN } from '../test/helpers/test-app.js';
import { clientLabel, knexFor, type TestDb } from '../test/helpers/test-db.js';
import { createBenchDatabase } from './dataset.js';
import { Child } from './ipc.js';
import type { ServerCounters } from './server.js';

export interface FanoutSettings {
  subscribers: number;
  rate: number;
  duration: number;
}

export interface FanoutResult {
  database: string;
  startedAt: string;
  settings: FanoutSettings;
  groups: number;
  /** perSecond: completed writes over the time from the first sent to the last answered; p50/p99: REST answer times. */
  writes: { sent: number; ok: number; failed: number; perSecond: number; p50Ms: number; p99Ms: number };
  deliveries: { expected: number; delivered: number; unmatched: number; otherMessages: number };
  latency: { p50Ms: number; p99Ms: number; maxMs: number };
  strata: { cpuPercent: number; cpuMsPerWrite: number; peakRssMb: number; rssBeforeMb: number };
}

/** Users of the readers' role (the subscribers other than the admin's take their tokens in turn). */
const ROLE_USERS = 10;
const QUERY = { fields: ['id', 'name', 'bio'] };
/** After the last write, how long deliveries may still arrive before the run is cut. */
const DRAIN_MS = 30_000;

type Guard = (stop: () => Promise<void>) => () => Promise<void>;

export async function benchFanout(
  client: DbClient,
  settings: FanoutSettings,
  paths: { build: string; results: string },
  guard: Guard,
  strataEnv: (db: TestDb) => Record<string, string>,
  profileDir: string | null = null,
): Promise<FanoutResult> {
  const label = clientLabel(client);
  const startedAt = new Date().toISOString();
  console.log(
    `\n== ${label}: fan-out, ${settings.subscribers} subscribers, ${settings.rate} writes/s for ${settings.duration} s`,
  );
  const testDb = await createBenchDatabase(client);
  const dropDb = guard(() => testDb.drop());
  try {
    const env = {
      ...strataEnv(testDb),
      WEBSOCKETS_ENABLED: 'true',
      WEBSOCKETS_HEARTBEAT_ENABLED: 'false',
      // Every subscriber connects from loopback, ~100 per user: the per-address and per-user bounds are lifted.
      WEBSOCKETS_CONN_LIMIT_PER_IP: 'Infinity',
      WEBSOCKETS_CONN_LIMIT_PER_USER: 'Infinity',
      WEBSOCKETS_SUBSCRIPTION_LIMIT_PER_USER: 'Infinity',
      WEBSOCKETS_SUBSCRIPTION_LIMIT_PER_IP: 'Infinity',
    };
    const tokens = await installReaders(env, testDb);
    const execArgv = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
    const strata = await Child.start('strata', path.join(paths.build, 'server.js'), env, { execArgv });
    const stopStrata = guard(() => strata.stop());
    const clients = await Child.start('subscribers', path.join(paths.build, 'fanout-clients.js'), {});
    const stopClients = guard(() => clients.stop());
    try {
      const base = `http://127.0.0.1:${await strata.call<number>('listen')}`;
      const subscriberTokens = Array.from({ length: settings.subscribers }, (_, i) =>
        i % 10 === 9 ? ADMIN.token : tokens[i % tokens.length]!,
      );
      let t0 = performance.now();
      await clients.call(
        'connect',
        { url: base, tokens: subscriberTokens, collection: 'authors', query: QUERY },
        300_000,
      );
      const stats = await strata.call<{ subscriptions: number; groups: number }>('subscriptions');
      console.log(
        `   ${stats.subscriptions} subscriptions in ${stats.groups} groups, connected in ${Math.round(performance.now() - t0)} ms`,
      );

      await strata.call('track', 'authors');
      await clients.call('record');
      const before = await strata.call<ServerCounters>('read');
      await strata.call('mark');
      t0 = performance.now();
      const writes = await writeAtRate(base, settings);
      const writeSeconds = (performance.now() - t0) / 1000;
      const counters = await strata.call<ServerCounters>('read');
      const expected = writes.ok * settings.subscribers;
      const drainUntil = performance.now() + DRAIN_MS;
      while (performance.now() < drainUntil && (await clients.call<number>('received')) < expected)
        await new Promise((resolve) => setTimeout(resolve, 100));
      const emits = await strata.call<[string, number][]>('emits');
      const measured = await clients.call<{
        delivered: number;
        unmatched: number;
        otherMessages: number;
        p50Ms: number;
        p99Ms: number;
        maxMs: number;
      }>('latencies', emits, 120_000);
      const round = (n: number) => Math.round(n * 10) / 10;
      const result: FanoutResult = {
        database: label,
        startedAt,
        settings,
        groups: stats.groups,
        writes: { ...writes, perSecond: round(writes.ok / writeSeconds) },
        deliveries: {
          expected,
          delivered: measured.delivered,
          unmatched: measured.unmatched,
          otherMessages: measured.otherMessages,
        },
        latency: { p50Ms: round(measured.p50Ms), p99Ms: round(measured.p99Ms), maxMs: round(measured.maxMs) },
        strata: {
          cpuPercent: round((counters.cpuMs / (writeSeconds * 1000)) * 100),
          // Per committed write (one that timed out at the writer may still have committed and fanned out).
          cpuMsPerWrite: round(counters.cpuMs / Math.max(1, emits.length)),
          peakRssMb: round(counters.peakMb),
          rssBeforeMb: round(before.peakMb),
        },
      };
      printFanout(result);
      mkdirSync(paths.results, { recursive: true });
      const file = path.join(paths.results, `fanout-${label}-${startedAt.replace(/[:.]/g, '-')}.json`);
      writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
      console.log(`written to ${path.relative(process.cwd(), file)}`);
      return result;
    } finally {
      await stopClients();
      await stopStrata();
    }
  } finally {
    await dropDb();
  }
}

/** Bootstraps Strata's tables, then a role of ROLE_USERS users whose policy reads active authors; their tokens. */
async function installReaders(env: Record<string, string>, testDb: TestDb): Promise<string[]> {
  const context = await createAppContext(readConfig(env), { bootstrap: true });
  await context.close();
  const k = knexFor(testDb);
  try {
    const policy = randomUUID();
    const role = randomUUID();
    await k('service_policies').insert({ id: policy, name: 'Fan-out readers', app_access: false, admin_access: false });
    await k('service_permissions').insert({
      policy,
      collection: 'authors',
      action: 'read',
      fields: 'id,name,bio',
      permissions: JSON.stringify({ active: { _eq: true } }),
    });
    await k('service_roles').insert({ id: role, name: 'Fan-out readers' });
    await k('service_access').insert({ id: randomUUID(), role, user: null, policy });
    const tokens = Array.from({ length: ROLE_USERS }, () => `fanout-${randomUUID()}`);
    await k('service_users').insert(
      tokens.map((token, i) => ({
        id: randomUUID(),
        email: `reader${i}@example.com`,
        status: 'active',
        role,
        token,
        provider: 'default',
      })),
    );
    return tokens;
  } finally {
    await k.destroy();
  }
}

/** `rate` creates per second for `duration` seconds, each sent on its tick whether or not the earlier ones answered. */
async function writeAtRate(
  base: string,
  settings: FanoutSettings,
): Promise<{ sent: number; ok: number; failed: number; p50Ms: number; p99Ms: number }> {
  const total = settings.rate * settings.duration;
  const intervalMs = 1000 / settings.rate;
  const started = performance.now();
  const inFlight: Promise<void>[] = [];
  let ok = 0;
  let failed = 0;
  const answered: number[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + i * intervalMs;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const sentAt = performance.now();
    inFlight.push(
      fetch(`${base}/items/authors?fields=id`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `Fan-out ${i}`, bio: 'written by the fan-out bench' }),
        signal: AbortSignal.timeout(30_000),
      }).then(
        async (response) => {
          await response.arrayBuffer();
          answered.push(performance.now() - sentAt);
          if (response.ok) ok++;
          else failed++;
        },
        () => void failed++,
      ),
    );
  }
  await Promise.all(inFlight);
  answered.sort((a, b) => a - b);
  const at = (p: number) => Math.round((answered[Math.floor((p / 100) * (answered.length - 1))] ?? NaN) * 10) / 10;
  return { sent: total, ok, failed, p50Ms: at(50), p99Ms: at(99) };
}

function printFanout(r: FanoutResult): void {
  console.log(
    `\n${r.database}: ${r.settings.subscribers} subscribers (${r.groups} groups), ${r.writes.perSecond} writes/s over ${r.settings.duration} s`,
  );
  console.log(
    '| deliveries | commit→delivery p50 ms | p99 ms | max ms | write answer p50 / p99 ms | Strata CPU % | CPU ms/write | peak RSS MiB |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  console.log(
    `| ${r.deliveries.delivered}/${r.deliveries.expected} | ${r.latency.p50Ms} | ${r.latency.p99Ms} | ${r.latency.maxMs} | ${r.writes.p50Ms} / ${r.writes.p99Ms} | ${r.strata.cpuPercent} | ${r.strata.cpuMsPerWrite} | ${r.strata.peakRssMb} |`,
  );
  if (r.writes.failed) console.log(`   ${r.writes.failed} of ${r.writes.sent} writes failed`);
}
