/**
 * With Redis: a change made through /fields on one instance reaches another instance's schema overview through the
 * bus, without a restart. Uses a redis-server of its own.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { readConfig } from '../../src/config/config.js';
import { createAppContext } from '../../src/app/app-context.js';
import { redisServerAvailable, TestRedis } from '../helpers/redis-server.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe(
  'schema changes reach other instances',
  { skip: redisServerAvailable() ? false : 'redis-server is not installed' },
  () => {
    let redis: TestRedis;
    let t: TestApp;
    const env = () => ({ REDIS: redis.url, REDIS_NAMESPACE: `strata-test-${randomBytes(4).toString('hex')}` });

    before(async () => {
      redis = await TestRedis.start();
      t = await startTestApp('sqlite3', { env: env() });
    });
    after(async () => {
      await t?.close();
      await redis?.stop();
    });

    it('shows a field created on one instance on the other one within seconds', async () => {
      const other = await createAppContext(
        readConfig({
          ...t.testDb.env,
          ...env(),
          REDIS_NAMESPACE: t.context.config.redis!.namespace,
          LOG_LEVEL: 'silent',
          SECRET: 'strata-test-secret-0123456789abcdef',
        }),
      );
      try {
        assert.equal(other.schema.current.collections.articles!.fields.subtitle, undefined);
        const res = await t.request({
          method: 'POST',
          url: '/fields/articles',
          payload: { field: 'subtitle', type: 'string' },
        });
        assert.equal(res.statusCode, 200, res.body);
        const started = Date.now();
        while (!other.schema.current.collections.articles!.fields.subtitle && Date.now() - started < 5_000)
          await wait(10);
        assert.equal(other.schema.current.collections.articles!.fields.subtitle?.type, 'string');
      } finally {
        await other.close();
      }
    });
  },
);
