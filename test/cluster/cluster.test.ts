/**
 * Two real Strata processes on one PostgreSQL database and one Redis, as behind a load balancer: they start
 * together without migrating twice, share rate-limit counts exactly, and stop gracefully with requests in flight.
 * Runs when TEST_PG_URL and TEST_REDIS_URL are set.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, knexFor, type TestDb } from '../helpers/test-db.js';
import { StrataProcess } from '../helpers/strata-process.js';

const ADMIN_TOKEN = 'strata-cluster-admin-token';
const enabled = Boolean(process.env.TEST_PG_URL && process.env.TEST_REDIS_URL);

describe('two instances sharing PostgreSQL and Redis', { skip: enabled ? false : 'needs TEST_PG_URL and TEST_REDIS_URL' }, () => {
  let db: TestDb;
  let a: StrataProcess;
  let b: StrataProcess;
  const namespace = `strata-cluster-${randomBytes(4).toString('hex')}`;

  before(async () => {
    db = await createTestDatabase('pg', { fixture: true });
    const k = knexFor(db);
    try {
      // Enough rows that a full read takes a while, for the in-flight requests of the shutdown test.
      await k.raw(`insert into articles (title, status, body) select 'Bulk ' || g, 'draft', repeat('x', 200) from generate_series(1, 60000) g`);
    } finally {
      await k.destroy();
    }
    const env = {
      ...db.env,
      SECRET: 'strata-cluster-secret-0123456789abcdef',
      ADMIN_EMAIL: 'admin@example.com',
      ADMIN_PASSWORD: 'strata-cluster-password',
      ADMIN_TOKEN,
      REDIS: process.env.TEST_REDIS_URL!,
      REDIS_NAMESPACE: namespace,
      RATE_LIMITER_POINTS: '30',
      RATE_LIMITER_DURATION: '120',
      IP_TRUST_PROXY: 'true',
      PRESSURE_LIMITER_ENABLED: 'false',
    };
    // Started together: the bootstrap lock makes one install and the other find it installed.
    [a, b] = await Promise.all([StrataProcess.start(env), StrataProcess.start(env)]);
  });

  after(async () => {
    await Promise.all([a?.stop('SIGKILL'), b?.stop('SIGKILL')]);
    await db?.drop();
  });

  it('both serve the same data after starting together', async () => {
    for (const instance of [a, b]) {
      const response = await fetch(`${instance.url}/items/authors?fields=name&sort=id`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-forwarded-for': '192.0.2.1' } });
      assert.equal(response.status, 200, instance.output);
      assert.deepEqual(((await response.json()) as { data: { name: string }[] }).data.map((r) => r.name), ['Ada Lovelace', 'Alan Turing', 'Grace Hopper']);
    }
  });

  it('counts one client across both instances exactly', async () => {
    const send = (instance: StrataProcess) => fetch(`${instance.url}/server/ping`, { headers: { 'x-forwarded-for': '192.0.2.77' } }).then((r) => r.status);
    const statuses = await Promise.all(Array.from({ length: 40 }, (_, i) => send(i % 2 === 0 ? a : b)));
    const allowed = statuses.filter((s) => s === 200).length;
    const limited = statuses.filter((s) => s === 429).length;
    assert.deepEqual({ allowed, limited }, { allowed: 30, limited: 10 });
  });

  it('finishes in-flight requests on SIGTERM, refuses new ones, and exits 0', async () => {
    const read = () =>
      fetch(`${b.url}/items/articles?limit=-1&fields=id,title,body`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-forwarded-for': '192.0.2.2' } }).then(async (r) => ({
        status: r.status,
        rows: r.ok ? ((await r.json()) as { data: unknown[] }).data.length : 0,
      }));
    const inFlight = [read(), read(), read()];
    await new Promise((resolve) => setTimeout(resolve, 150));
    const exited = b.stop('SIGTERM');
    const results = await Promise.all(inFlight);
    assert.deepEqual(results, Array(3).fill({ status: 200, rows: 60006 }));
    assert.equal(await exited, 0, b.output);
    await assert.rejects(fetch(`${b.url}/server/ping`));
    // The other instance is untouched.
    assert.equal((await fetch(`${a.url}/server/ping`, { headers: { 'x-forwarded-for': '192.0.2.3' } })).status, 200);
  });
});
