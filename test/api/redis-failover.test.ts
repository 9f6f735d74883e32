/**
 * With Redis: rate-limit counts live in Redis, schema-change notices reach other instances, and when Redis goes
 * away the service keeps serving (and limiting, in memory) until it is back. Uses a redis-server of its own.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createClient } from 'redis';
import { readConfig } from '../../src/config/config.js';
import { createAppContext } from '../../src/app/app-context.js';
import { redisServerAvailable, TestRedis } from '../helpers/redis-server.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { knexFor } from '../helpers/test-db.js';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe(
  'Redis: shared counts, notices and outages',
  { skip: redisServerAvailable() ? false : 'redis-server is not installed' },
  () => {
    let redis: TestRedis;
    let t: TestApp;
    const namespace = `strata-test-${randomBytes(4).toString('hex')}`;
    const env = () => ({
      REDIS: redis.url,
      REDIS_NAMESPACE: namespace,
      RATE_LIMITER_ENABLED: 'true',
      RATE_LIMITER_POINTS: '3',
      RATE_LIMITER_DURATION: '60',
      IP_TRUST_PROXY: 'true',
    });
    const ping = (ip: string) => t.request({ method: 'GET', url: '/server/ping', headers: { 'x-forwarded-for': ip } });
    const counted = async (ip: string) => {
      const client = createClient({ url: redis.url });
      await client.connect();
      try {
        return await client.get(`${namespace}:rl:ip:${ip}`);
      } finally {
        await client.close();
      }
    };

    before(async () => {
      redis = await TestRedis.start();
      t = await startTestApp('sqlite3', { env: env() });
    });
    after(async () => {
      await t?.close();
      await redis?.stop();
    });

    it('keeps rate-limit counts in Redis', async () => {
      assert.deepEqual([(await ping('10.1.0.1')).statusCode, (await ping('10.1.0.1')).statusCode], [200, 200]);
      assert.equal(await counted('10.1.0.1'), '2');
    });

    it('tells other instances of a schema change through Redis within a second', async () => {
      const other = await createAppContext(
        readConfig({ ...t.testDb.env, ...env(), LOG_LEVEL: 'silent', SECRET: 'strata-test-secret-0123456789abcdef' }),
      );
      try {
        const k = knexFor(t.testDb);
        try {
          await k.schema.createTable('gadgets', (table) => {
            table.increments('id');
            table.string('name');
          });
        } finally {
          await k.destroy();
        }
        assert.equal(other.schema.current.collections.gadgets, undefined);
        const started = Date.now();
        await t.context.schemaChanged();
        while (!other.schema.current.collections.gadgets && Date.now() - started < 5_000) await wait(10);
        const elapsed = Date.now() - started;
        assert.ok(other.schema.current.collections.gadgets, 'the other instance never reloaded');
        assert.ok(elapsed < 1_000, `took ${elapsed} ms`);
      } finally {
        await other.close();
      }
    });

    it('keeps serving, and limiting in memory, while Redis is down, and uses it again once it is back', async () => {
      await redis.stop();
      const during = [];
      for (let i = 0; i < 4; i++) during.push((await ping('10.1.0.2')).statusCode);
      assert.deepEqual(during, [200, 200, 200, 429]);
      await redis.resume();
      const deadline = Date.now() + 10_000;
      while (!t.context.redis!.isReady && Date.now() < deadline) await wait(50);
      assert.ok(t.context.redis!.isReady, 'the client did not reconnect');
      assert.equal((await ping('10.1.0.3')).statusCode, 200);
      assert.equal(await counted('10.1.0.3'), '1');
    });
  },
);
