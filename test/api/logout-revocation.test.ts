/**
 * A logout ends its login at once: the access tokens issued for it (before and after refreshes) stop working on
 * this instance and, through the bus, on every other instance; other logins of the same user keep working.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redisServerAvailable, TestRedis } from '../helpers/redis-server.js';
import { ADMIN, errorCode, json, startSecondInstance, startTestApp } from '../helpers/test-app.js';
import { clientLabel, testClients } from '../helpers/test-db.js';

const login = { email: ADMIN.email, password: ADMIN.password };

for (const client of testClients()) {
  describe(`logout revocation (${clientLabel(client)})`, () => {
    it('ends every access token of the login at once, and no other login', async () => {
      const t = await startTestApp(client, { fixture: false });
      try {
        const me = (token: string) => t.request({ method: 'GET', url: '/users/me?fields=email', token });
        const first = json(await t.request({ method: 'POST', url: '/auth/login', payload: login, token: null })).data;
        const other = json(await t.request({ method: 'POST', url: '/auth/login', payload: login, token: null })).data;
        const refreshed = json(
          await t.request({
            method: 'POST',
            url: '/auth/refresh',
            payload: { refresh_token: first.refresh_token },
            token: null,
          }),
        ).data;
        for (const token of [first.access_token, refreshed.access_token, other.access_token])
          assert.equal((await me(token)).statusCode, 200);

        const out = await t.request({
          method: 'POST',
          url: '/auth/logout',
          payload: { refresh_token: refreshed.refresh_token },
          token: null,
        });
        assert.equal(out.statusCode, 204, out.body);
        for (const token of [first.access_token, refreshed.access_token]) {
          const after = await me(token);
          assert.equal(after.statusCode, 401, after.body);
          assert.equal(errorCode(after), 'INVALID_CREDENTIALS');
        }
        assert.equal((await me(other.access_token)).statusCode, 200);
        // Cookie mode too.
        const cookie = await t.request({
          method: 'POST',
          url: '/auth/login',
          payload: { ...login, mode: 'cookie' },
          token: null,
        });
        const refreshCookie = cookie.cookies.find((c) => c.name === 'service_refresh_token')!.value;
        assert.equal((await me(json(cookie).data.access_token)).statusCode, 200);
        await t.request({
          method: 'POST',
          url: '/auth/logout',
          payload: {},
          cookies: { service_refresh_token: refreshCookie },
          token: null,
        });
        assert.equal(errorCode(await me(json(cookie).data.access_token)), 'INVALID_CREDENTIALS');
      } finally {
        await t.close();
      }
    });
  });
}

describe(
  'logout revocation across instances',
  { skip: !redisServerAvailable() && 'redis-server is not installed' },
  () => {
    it('ends the login on every instance that shares the Redis bus, including ones that had cached it as live', async () => {
      const redis = await TestRedis.start();
      const t = await startTestApp('sqlite3', {
        fixture: false,
        env: { REDIS: redis.url, REDIS_NAMESPACE: 'logout-test' },
      });
      const second = await startSecondInstance(t, { REDIS: redis.url, REDIS_NAMESPACE: 'logout-test' });
      try {
        const tokens = json(await t.request({ method: 'POST', url: '/auth/login', payload: login, token: null })).data;
        const meOnSecond = () =>
          second.app.inject({
            method: 'GET',
            url: '/users/me?fields=email',
            headers: { authorization: `Bearer ${tokens.access_token}` },
          });
        assert.equal((await meOnSecond()).statusCode, 200);
        await t.request({
          method: 'POST',
          url: '/auth/logout',
          payload: { refresh_token: tokens.refresh_token },
          token: null,
        });
        let status = 200;
        // The notice travels over Redis pub/sub: a few milliseconds.
        for (let i = 0; i < 50 && status === 200; i++) {
          status = (await meOnSecond()).statusCode;
          if (status === 200) await new Promise((resolve) => setTimeout(resolve, 20));
        }
        assert.equal(status, 401);
      } finally {
        await second.close();
        await t.close();
        await redis.stop();
      }
    });
  },
);
