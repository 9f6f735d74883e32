/**
 * An extension's action hook is never lost: with a real Strata process, a hook tells a receiver of every new article
 * (test/fixtures/extensions-outbox). The receiver is down, articles are created (their actions are recorded with the
 * write and fail, retried), the process is killed with SIGKILL, the receiver comes back and a new process starts:
 * every article's action runs. SQLite, and PostgreSQL / MariaDB when their URLs are set.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { FlowReceiver, until } from '../helpers/flow-receiver.js';
import { StrataProcess } from '../helpers/strata-process.js';
import { clientLabel, createTestDatabase, testClients, type TestDb } from '../helpers/test-db.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/extensions-outbox');
const TOKEN = 'strata-hook-crash-admin-token';

for (const client of testClients()) {
  describe(`extension actions survive a receiver outage and SIGKILL (${clientLabel(client)})`, () => {
    let db: TestDb;
    let env: Record<string, string>;
    const processes: StrataProcess[] = [];
    const receiver = new FlowReceiver();

    before(async () => {
      db = await createTestDatabase(client, { fixture: true });
      await receiver.start();
      env = {
        ...db.env,
        SECRET: 'strata-hook-crash-secret-0123456789abcdef',
        ADMIN_EMAIL: 'admin@example.com',
        ADMIN_PASSWORD: 'strata-hook-crash-password',
        ADMIN_TOKEN: TOKEN,
        RATE_LIMITER_ENABLED: 'false',
        PRESSURE_LIMITER_ENABLED: 'false',
        EXTENSIONS_PATH: FIXTURES,
        NOTIFY_URL: `${receiver.url}/hook`,
        FLOWS_RETRY_BASE: '100',
        FLOWS_RETRY_MAX: '500',
        FLOWS_DELIVERY_POLL: '200',
        FLOWS_DELIVERY_ATTEMPTS: '1000',
        FLOWS_RUN_TIMEOUT: '10s',
        FLOWS_DELIVERY_LEASE: '15s',
      };
      await receiver.stop();
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

    it('runs every action after the restart, once the receiver is back', async () => {
      const first = await StrataProcess.start(env);
      processes.push(first);
      const keys: number[] = [];
      for (let i = 0; i < 5; i++)
        keys.push(Number((await api(first, 'POST', '/items/articles', { title: `while down ${i}` })).id));
      await until('failed tries', async () =>
        (await api(first, 'GET', '/flows/deliveries?status=pending&limit=100')).some(
          (d: { attempts: number; last_error: string | null }) => d.attempts > 1 && d.last_error,
        ),
      );
      await first.stop('SIGKILL');
      await receiver.start();
      const second = await StrataProcess.start(env);
      processes.push(second);
      const arrived = () => new Set(receiver.bodies().map((body) => Number(body.key)));
      await until('every action', () => keys.every((key) => arrived().has(key)));
      assert.deepEqual(
        [...arrived()].sort((a, b) => a - b),
        keys,
      );
    });
  });
}
