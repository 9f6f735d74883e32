/**
 * Two real Strata processes on one PostgreSQL database and one Redis, as behind a load balancer: they start
 * together without migrating twice, share rate-limit counts exactly, see each other's schema and permission changes
 * within a second, lose no acknowledged write when one is killed under load, and stop gracefully with requests in
 * flight. Runs when TEST_PG_URL and TEST_REDIS_URL are set. Propagation times are reported as test diagnostics.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, knexFor, type TestDb } from '../helpers/test-db.js';
import { StrataProcess } from '../helpers/strata-process.js';

const ADMIN_TOKEN = 'strata-cluster-admin-token';
const enabled = Boolean(process.env.TEST_PG_URL && process.env.TEST_REDIS_URL);

/** Each polling request or write of the load comes from its own address: the shared limit (30) is another test's. */
let nextAddress = 0;
const freshIp = () => `10.${(nextAddress >> 16) & 255}.${(nextAddress >> 8) & 255}.${nextAddress++ & 255}`;
const adminHeaders = (ip: string) => ({ authorization: `Bearer ${ADMIN_TOKEN}`, 'x-forwarded-for': ip });

/** Polls `check` every 10 ms (for at most 10 s); returns the milliseconds until it first held. */
async function until(check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < 10_000) {
    if (await check()) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Infinity;
}

describe(
  'two instances sharing PostgreSQL and Redis',
  { skip: enabled ? false : 'needs TEST_PG_URL and TEST_REDIS_URL' },
  () => {
    let db: TestDb;
    let a: StrataProcess;
    let b: StrataProcess;
    let env: Record<string, string>;
    const namespace = `strata-cluster-${randomBytes(4).toString('hex')}`;

    before(async () => {
      db = await createTestDatabase('pg', { fixture: true });
      const k = knexFor(db);
      try {
        // Enough rows that a full read takes a while, for the in-flight requests of the shutdown test.
        await k.raw(
          `insert into articles (title, status, body) select 'Bulk ' || g, 'draft', repeat('x', 200) from generate_series(1, 60000) g`,
        );
      } finally {
        await k.destroy();
      }
      env = {
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
        // The SIGTERM test's in-flight reads (60,000 rows each) can outlast the default 10 s on a loaded machine;
        // what it tests is that they finish, not the timeout.
        SHUTDOWN_TIMEOUT: '120s',
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
        const response = await fetch(`${instance.url}/items/authors?fields=name&sort=id`, {
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-forwarded-for': '192.0.2.1' },
        });
        assert.equal(response.status, 200, instance.output);
        assert.deepEqual(
          ((await response.json()) as { data: { name: string }[] }).data.map((r) => r.name),
          ['Ada Lovelace', 'Alan Turing', 'Grace Hopper'],
        );
      }
    });

    it('counts one client across both instances exactly', async () => {
      const send = (instance: StrataProcess) =>
        fetch(`${instance.url}/server/ping`, { headers: { 'x-forwarded-for': '192.0.2.77' } }).then((r) => r.status);
      const statuses = await Promise.all(Array.from({ length: 40 }, (_, i) => send(i % 2 === 0 ? a : b)));
      const allowed = statuses.filter((s) => s === 200).length;
      const limited = statuses.filter((s) => s === 429).length;
      assert.deepEqual({ allowed, limited }, { allowed: 30, limited: 10 });
    });

    it('serves a field created through one instance from the other within a second', async (t) => {
      const created = await fetch(`${a.url}/fields/articles`, {
        method: 'POST',
        headers: { ...adminHeaders('192.0.2.4'), 'content-type': 'application/json' },
        body: JSON.stringify({ field: 'cluster_flag', type: 'string' }),
      });
      assert.equal(created.status, 200, await created.text());
      const started = Date.now();
      const elapsed = await until(
        async () =>
          (await fetch(`${b.url}/items/articles?fields=cluster_flag&limit=1`, { headers: adminHeaders(freshIp()) }))
            .status === 200,
      );
      t.diagnostic(
        `schema change seen on the other instance after ${elapsed} ms (${Date.now() - started} ms including the last poll)`,
      );
      assert.ok(elapsed < 1_000, `the new field reached the other instance after ${elapsed} ms`);
    });

    it("runs schema changes of both instances one after the other, each planned against the other's result", async () => {
      const create = (instance: StrataProcess) =>
        fetch(`${instance.url}/fields/articles`, {
          method: 'POST',
          headers: { ...adminHeaders(freshIp()), 'content-type': 'application/json' },
          body: JSON.stringify({ field: 'cluster_twice', type: 'integer' }),
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as { errors?: { message: string }[] } }));
      const results = await Promise.all([create(a), create(b)]);
      assert.deepEqual(results.map((r) => r.status).sort(), [200, 400]);
      const refused = results.find((r) => r.status === 400)!;
      assert.equal(
        refused.body.errors?.[0]?.message,
        'Invalid payload. Field "cluster_twice" already exists in collection "articles".',
      );
    });

    it('enforces a permission revoked through one instance on the other within a second', async (t) => {
      const k = knexFor(db);
      const policy = randomUUID();
      const role = randomUUID();
      const user = randomUUID();
      const token = `cluster-user-${randomUUID()}`;
      let permission: number;
      try {
        await k('service_policies').insert({
          id: policy,
          name: 'cluster readers',
          app_access: false,
          admin_access: false,
        });
        [{ id: permission }] = await k('service_permissions')
          .insert({ policy, collection: 'authors', action: 'read', fields: '*' })
          .returning('id');
        await k('service_roles').insert({ id: role, name: 'cluster role' });
        await k('service_access').insert({ id: randomUUID(), role, policy });
        await k('service_users').insert({
          id: user,
          email: 'cluster-reader@example.com',
          status: 'active',
          role,
          token,
          provider: 'default',
        });
      } finally {
        await k.destroy();
      }
      const read = (instance: StrataProcess) =>
        fetch(`${instance.url}/items/authors?fields=name`, {
          headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': freshIp() },
        }).then((r) => r.status);
      assert.equal(await read(b), 200);
      const revoked = await fetch(`${a.url}/permissions/${permission!}`, {
        method: 'DELETE',
        headers: adminHeaders('192.0.2.7'),
      });
      assert.equal(revoked.status, 204, await revoked.text());
      assert.equal(await read(a), 403);
      const elapsed = await until(async () => (await read(b)) === 403);
      t.diagnostic(`permission revocation enforced on the other instance after ${elapsed} ms`);
      assert.ok(elapsed < 1_000, `the revoked permission still held on the other instance after ${elapsed} ms`);
    });

    it('loses no acknowledged write when an instance is killed under write load', async (t) => {
      const c = await StrataProcess.start(env);
      const acknowledged: number[] = [];
      let failed = 0;
      let stop = false;
      let sent = 0;
      const worker = async (w: number) => {
        for (let i = 0; !stop; i++) {
          const instance = (w + i) % 2 === 0 ? b : c;
          sent++;
          try {
            const response = await fetch(`${instance.url}/items/articles?fields=id`, {
              method: 'POST',
              headers: { ...adminHeaders(freshIp()), 'content-type': 'application/json' },
              body: JSON.stringify({ title: `load-${w}-${i}`, status: 'draft' }),
            });
            if (response.status === 200)
              acknowledged.push(((await response.json()) as { data: { id: number } }).data.id);
            else failed++;
          } catch {
            failed++;
          }
        }
      };
      const workers = Array.from({ length: 8 }, (_, w) => worker(w));
      await new Promise((resolve) => setTimeout(resolve, 800));
      await c.stop('SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 300));
      stop = true;
      await Promise.all(workers);
      const k = knexFor(db);
      let stored: number[];
      try {
        stored = (await k('articles').select('id').where('title', 'like', 'load-%')).map((r: { id: number }) => r.id);
      } finally {
        await k.destroy();
      }
      const kept = new Set(stored);
      const lost = acknowledged.filter((id) => !kept.has(id));
      t.diagnostic(
        `writes sent ${sent}, acknowledged ${acknowledged.length}, failed ${failed}, rows stored ${stored.length}, acknowledged but lost ${lost.length}`,
      );
      assert.ok(
        acknowledged.length > 0 && failed > 0,
        'the load ran on both instances and the kill interrupted some of it',
      );
      assert.deepEqual(lost, []);
      assert.ok(stored.length >= acknowledged.length);
    });

    it('finishes in-flight requests on SIGTERM, refuses new ones, and exits 0', async () => {
      const read = () =>
        fetch(`${b.url}/items/articles?limit=-1&fields=id,title,body&filter[title][_starts_with]=Bulk%20`, {
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-forwarded-for': '192.0.2.2' },
        }).then(async (r) => ({
          status: r.status,
          rows: r.ok ? ((await r.json()) as { data: unknown[] }).data.length : 0,
        }));
      const inFlight = [read(), read(), read()];
      await new Promise((resolve) => setTimeout(resolve, 150));
      const exited = b.stop('SIGTERM');
      const results = await Promise.all(inFlight);
      assert.deepEqual(results, Array(3).fill({ status: 200, rows: 60000 }));
      assert.equal(await exited, 0, b.output);
      await assert.rejects(fetch(`${b.url}/server/ping`));
      // The other instance is untouched.
      assert.equal((await fetch(`${a.url}/server/ping`, { headers: { 'x-forwarded-for': '192.0.2.3' } })).status, 200);
    });
  },
);
