/**
 * Flow delivery bench: an action flow with one request operation calls a receiver on loopback on every create of
 * `articles` (through the outbox). On a throwaway database (SQLite by default; BENCH_DB=pg|mysql with TEST_PG_URL /
 * TEST_MYSQL_URL), the Strata app in this process (Fastify inject), the receiver an http server in this process too:
 *   latency  BENCH_LATENCY items created one at a time; time from the create's answer (committed) to the receiver
 *            getting its event: median and p95.
 *   rate     BENCH_EVENTS items created in batches of 100 (4 requests at once); events/s from the first request to
 *            the last event received; and the same creates with no flow, for the write's own cost.
 *   BENCH_LATENCY=200 BENCH_EVENTS=5000 node --import tsx bench/flows-delivery.ts
 */
import type { DbClient } from '../src/config/config.js';
import { FlowReceiver } from '../test/helpers/flow-receiver.js';
import { startTestApp, type TestApp } from '../test/helpers/test-app.js';

const client = (process.env.BENCH_DB ?? 'sqlite3') as DbClient;
const latencyItems = Number(process.env.BENCH_LATENCY ?? 200);
const events = Number(process.env.BENCH_EVENTS ?? 5000);
const BATCH = 100;
const PARALLEL = 4;

const receiver = new FlowReceiver();
const arrived = new Map<number, number>();

async function post(t: TestApp, url: string, body: unknown): Promise<any> {
  const response = await t.request({
    method: 'POST',
    url,
    payload: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  if (response.statusCode >= 300) throw new Error(`${url}: ${response.statusCode} ${response.body}`);
  return response.body ? JSON.parse(response.body).data : null;
}

async function waitFor(count: number): Promise<void> {
  while (arrived.size < count) await new Promise((resolve) => setTimeout(resolve, 2));
}

async function createBatches(t: TestApp, total: number, label: string): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const start = next;
      next += BATCH;
      const body = Array.from({ length: Math.min(BATCH, total - start) }, (_, i) => ({
        title: `${label} ${start + i}`,
      }));
      await post(t, '/items/articles?fields=id', body);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
}

const pct = (values: number[], p: number) => values.sort((a, b) => a - b)[Math.floor((values.length - 1) * p)]!;

async function main(): Promise<void> {
  await receiver.start();
  receiver.answer = (request) => {
    arrived.set(Number(JSON.parse(request.body).key), performance.now());
    return 200;
  };
  const t = await startTestApp(client, { env: { FLOWS_DELIVERY_BATCH: '100' } });
  try {
    let started = performance.now();
    await createBatches(t, events, 'plain');
    const plainMs = performance.now() - started;

    const flow = await post(t, '/flows', {
      name: 'bench',
      status: 'active',
      trigger: 'event',
      options: { type: 'action', scope: ['items.create'], collections: ['articles'] },
    });
    const operation = await post(t, '/operations', {
      key: 'notify',
      type: 'request',
      flow: flow.id,
      position_x: 0,
      position_y: 0,
      options: { url: `${receiver.url}/e`, method: 'POST', body: '{{ $trigger }}' },
    });
    await t.request({
      method: 'PATCH',
      url: `/flows/${flow.id}`,
      payload: JSON.stringify({ operation: operation.id }),
      headers: { 'content-type': 'application/json' },
    });

    const latencies: number[] = [];
    for (let i = 0; i < latencyItems; i++) {
      const [created] = await post(t, '/items/articles?fields=id', [{ title: `latency ${i}` }]);
      const committed = performance.now();
      const key = Number(created.id);
      while (!arrived.has(key)) await new Promise((resolve) => setImmediate(resolve));
      latencies.push(arrived.get(key)! - committed);
    }
    arrived.clear();

    started = performance.now();
    await createBatches(t, events, 'flow');
    const writtenMs = performance.now() - started;
    await waitFor(events);
    const lastArrival = Math.max(...arrived.values());
    const totalMs = lastArrival - started;
    console.log(`flow deliveries on ${client}:`);
    console.log(
      `  latency after commit (${latencyItems} one at a time): median ${pct(latencies, 0.5).toFixed(1)} ms, p95 ${pct(latencies, 0.95).toFixed(1)} ms`,
    );
    console.log(
      `  ${events} creates in batches of ${BATCH}: writes ${(plainMs / 1000).toFixed(2)} s without the flow, ${(writtenMs / 1000).toFixed(2)} s with it (outbox rows); all delivered after ${(totalMs / 1000).toFixed(2)} s = ${Math.round(events / (totalMs / 1000))} events/s`,
    );
  } finally {
    await t.close();
    await receiver.stop();
  }
}

await main();
