/**
 * Schedules across two real Strata processes on one database: a `schedule` flow every second calls a receiver with
 * its `$trigger` (the tick's timestamp); over several ticks each tick arrives exactly once, from one of the two
 * instances (each one process, then each two workers). SQLite, and PostgreSQL / MariaDB when their URLs are set.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FlowReceiver, until } from '../helpers/flow-receiver.js';
import { StrataProcess } from '../helpers/strata-process.js';
import { clientLabel, createTestDatabase, testClients, type TestDb } from '../helpers/test-db.js';

const TOKEN = 'strata-schedule-cluster-admin-token';
const TICKS = 5;

// Two instances of one process each, then of two workers each (WORKERS=2: four schedulers on one database).
for (const [client, workers] of testClients().flatMap((c) => [[c, '1'] as const, [c, '2'] as const])) {
  describe(`a schedule flow runs once per tick across two instances of ${workers} worker(s) (${clientLabel(client)})`, () => {
    let db: TestDb;
    const processes: StrataProcess[] = [];
    const receiver = new FlowReceiver();

    before(async () => {
      db = await createTestDatabase(client, { fixture: true });
      await receiver.start();
    });
    after(async () => {
      for (const p of processes) await p.stop('SIGKILL');
      await receiver.stop();
      await db?.drop();
    });

    const api = async (strata: StrataProcess, method: string, url: string, body?: unknown) => {
      const response = await fetch(`${strata.url}${url}`, {
        method,
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      assert.ok(response.ok, `${method} ${url}: ${response.status} ${text}`);
      return text ? JSON.parse(text).data : null;
    };

    it('each tick reaches the receiver once', async () => {
      const env = {
        ...db.env,
        SECRET: 'strata-schedule-cluster-secret-0123456789abcdef',
        ADMIN_EMAIL: 'admin@example.com',
        ADMIN_PASSWORD: 'strata-schedule-cluster-password',
        ADMIN_TOKEN: TOKEN,
        RATE_LIMITER_ENABLED: 'false',
        PRESSURE_LIMITER_ENABLED: 'false',
        WORKERS: workers,
      };
      const [a, b] = await Promise.all([StrataProcess.start(env), StrataProcess.start(env)]);
      processes.push(a!, b!);
      const flow = await api(a!, 'POST', '/flows', {
        name: 'every second',
        status: 'active',
        trigger: 'schedule',
        options: { cron: '* * * * * *' },
      });
      const operation = await api(a!, 'POST', '/operations', {
        key: 'tick',
        type: 'request',
        flow: flow.id,
        position_x: 0,
        position_y: 0,
        options: { url: `${receiver.url}/tick`, method: 'POST', body: '{{ $trigger }}' },
      });
      // The change reaches the other instance over the database bus; both schedule the flow.
      await api(a!, 'PATCH', `/flows/${flow.id}`, { operation: operation.id });
      const stamps = () => receiver.bodies().map((body) => String(body.timestamp));
      await until(`${TICKS} ticks`, () => new Set(stamps()).size >= TICKS + 2, 60_000);
      const counts = new Map<string, number>();
      for (const stamp of stamps()) counts.set(stamp, (counts.get(stamp) ?? 0) + 1);
      assert.deepEqual(
        [...counts.entries()].filter(([, n]) => n > 1),
        [],
      );
      assert.ok(
        [...counts.keys()].every((stamp) => !Number.isNaN(Date.parse(stamp))),
        stamps().join(),
      );
    });
  });
}
