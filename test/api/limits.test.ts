/**
 * Rate limits, the login limiter, the pressure guard and request limits, in one process (SQLite; the shared
 * Redis store is tested in redis-failover.test.ts and across processes in test/cluster/).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { errorCode, json, startTestApp } from '../helpers/test-app.js';
import { ADMIN } from '../helpers/test-app.js';

describe('rate limits and request limits', () => {
  it('limits each client IP, answering 429 REQUESTS_EXCEEDED with Retry-After and limit/reset', async () => {
    const t = await startTestApp('sqlite3', {
      env: {
        RATE_LIMITER_ENABLED: 'true',
        RATE_LIMITER_POINTS: '5',
        RATE_LIMITER_DURATION: '60',
        IP_TRUST_PROXY: 'true',
      },
    });
    try {
      const from = (ip: string) =>
        t.request({ method: 'GET', url: '/server/ping', headers: { 'x-forwarded-for': ip } });
      const statuses = [];
      for (let i = 0; i < 7; i++) statuses.push((await from('10.0.0.1')).statusCode);
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429]);
      const limited = await from('10.0.0.1');
      assert.equal(errorCode(limited), 'REQUESTS_EXCEEDED');
      const retryAfter = Number(limited.headers['retry-after']);
      assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, String(retryAfter));
      const extensions = json(limited).errors[0].extensions;
      assert.equal(extensions.limit, 5);
      assert.ok(Date.parse(extensions.reset) > Date.now());
      // Another client has its own bucket; every route counts, items and auth included.
      assert.equal((await from('10.0.0.2')).statusCode, 200);
      assert.equal(
        (await t.request({ method: 'GET', url: '/items/articles?limit=1', headers: { 'x-forwarded-for': '10.0.0.1' } }))
          .statusCode,
        429,
      );
    } finally {
      await t.close();
    }
  });

  it('ignores X-Forwarded-For unless the proxy is trusted, and takes the client IP from IP_CUSTOM_HEADER when set', async () => {
    const untrusted = await startTestApp('sqlite3', {
      env: { RATE_LIMITER_ENABLED: 'true', RATE_LIMITER_POINTS: '2', RATE_LIMITER_DURATION: '60' },
    });
    try {
      const codes = [];
      for (const ip of ['10.0.0.1', '10.0.0.2', '10.0.0.3'])
        codes.push(
          (await untrusted.request({ method: 'GET', url: '/server/ping', headers: { 'x-forwarded-for': ip } }))
            .statusCode,
        );
      assert.deepEqual(codes, [200, 200, 429]);
    } finally {
      await untrusted.close();
    }
    const custom = await startTestApp('sqlite3', {
      env: {
        RATE_LIMITER_ENABLED: 'true',
        RATE_LIMITER_POINTS: '1',
        RATE_LIMITER_DURATION: '60',
        IP_CUSTOM_HEADER: 'CF-Connecting-IP',
      },
    });
    try {
      const ping = (ip: string) =>
        custom.request({ method: 'GET', url: '/server/ping', headers: { 'cf-connecting-ip': ip } });
      assert.deepEqual(
        [(await ping('1.1.1.1')).statusCode, (await ping('2.2.2.2')).statusCode, (await ping('1.1.1.1')).statusCode],
        [200, 200, 429],
      );
    } finally {
      await custom.close();
    }
  });

  it('takes the address the trusted hops report: a client cannot prepend its own X-Forwarded-For entries', async () => {
    const ipOf = async (env: Record<string, string>, forwarded: string[]) => {
      const t = await startTestApp('sqlite3', {
        env: { RATE_LIMITER_ENABLED: 'true', RATE_LIMITER_POINTS: '1', RATE_LIMITER_DURATION: '60', ...env },
      });
      try {
        // Each request spends the one point of its client IP: the second request of one IP is 429.
        const statuses = [];
        for (const header of forwarded)
          statuses.push(
            (await t.request({ method: 'GET', url: '/server/ping', headers: { 'x-forwarded-for': header } }))
              .statusCode,
          );
        return statuses;
      } finally {
        await t.close();
      }
    };
    // One hop (true): the last entry is what the balancer saw; whatever the client put before it changes nothing.
    assert.deepEqual(
      await ipOf({ IP_TRUST_PROXY: 'true' }, ['10.0.0.1, 203.0.113.7', '10.0.0.2, 203.0.113.7', '203.0.113.8']),
      [200, 429, 200],
    );
    // Two hops: the second-to-last entry.
    assert.deepEqual(
      await ipOf({ IP_TRUST_PROXY: '2' }, [
        '1.1.1.1, 203.0.113.7, 10.0.0.9',
        '2.2.2.2, 203.0.113.7, 10.0.0.8',
        '203.0.113.8, 10.0.0.9',
      ]),
      [200, 429, 200],
    );
    // Trusted addresses: hops are followed while they are trusted proxies.
    assert.deepEqual(
      await ipOf({ IP_TRUST_PROXY: '127.0.0.1,10.0.0.0/8' }, [
        '1.1.1.1, 203.0.113.7, 10.1.2.3',
        '2.2.2.2, 203.0.113.7',
        '203.0.113.9, 10.0.0.1',
        '203.0.113.9',
      ]),
      [200, 429, 200, 429],
    );
  });

  it('has an optional global bucket shared by all clients', async () => {
    const t = await startTestApp('sqlite3', {
      env: {
        RATE_LIMITER_ENABLED: 'true',
        RATE_LIMITER_POINTS: '100',
        RATE_LIMITER_GLOBAL_ENABLED: 'true',
        RATE_LIMITER_GLOBAL_POINTS: '3',
        RATE_LIMITER_GLOBAL_DURATION: '60',
        IP_TRUST_PROXY: 'true',
      },
    });
    try {
      const codes = [];
      for (let i = 0; i < 5; i++)
        codes.push(
          (await t.request({ method: 'GET', url: '/server/ping', headers: { 'x-forwarded-for': `10.0.1.${i}` } }))
            .statusCode,
        );
      assert.deepEqual(codes, [200, 200, 200, 429, 429]);
    } finally {
      await t.close();
    }
  });

  it('limits login attempts per account and client IP more strictly', async () => {
    const t = await startTestApp('sqlite3', {
      env: {
        RATE_LIMITER_ENABLED: 'true',
        RATE_LIMITER_POINTS: '100',
        RATE_LIMITER_LOGIN_POINTS: '2',
        RATE_LIMITER_LOGIN_DURATION: '60',
      },
    });
    try {
      const login = (email: string, password: string) =>
        t.request({ method: 'POST', url: '/auth/login', payload: { email, password }, token: null });
      assert.equal(errorCode(await login(ADMIN.email, 'wrong')), 'INVALID_CREDENTIALS');
      assert.equal((await login(ADMIN.email, ADMIN.password)).statusCode, 200);
      assert.equal(errorCode(await login(ADMIN.email.toUpperCase(), ADMIN.password)), 'REQUESTS_EXCEEDED');
      assert.equal(errorCode(await login('someone@example.com', 'x')), 'INVALID_CREDENTIALS');
    } finally {
      await t.close();
    }
  });

  it('answers 503 under event-loop pressure and recovers when the pressure is gone', async () => {
    const t = await startTestApp('sqlite3', {
      env: {
        PRESSURE_LIMITER_ENABLED: 'true',
        PRESSURE_LIMITER_MAX_EVENT_LOOP_DELAY: '200',
        PRESSURE_LIMITER_SAMPLE_INTERVAL: '20',
      },
    });
    try {
      // The guard needs a few samples of the event loop before it judges (and the machine may be busy).
      let calm = 0;
      for (let i = 0; i < 100 && calm !== 200; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        calm = (await t.request({ method: 'GET', url: '/server/ping' })).statusCode;
      }
      assert.equal(calm, 200);
      // Sustained pressure, as a runaway synchronous task makes it: every turn of the loop blocks for 300 ms, so
      // every sample of the guard (the mean delay of the loop's ticks since the last one) stays over 200 ms for as
      // long as the pressure lasts. A single block shows in one sample only, which a busy machine can miss.
      let pressing = true;
      const press = () => {
        const until = Date.now() + 300;
        while (Date.now() < until) {
          // Blocking on purpose.
        }
        if (pressing) setImmediate(press);
      };
      setImmediate(press);
      let pressured;
      try {
        pressured = await t.request({ method: 'GET', url: '/server/ping' });
        for (let i = 0; i < 20 && pressured.statusCode !== 503; i++) {
          // A turn of the loop (a block, then the guard's sample) between requests.
          await new Promise((resolve) => setImmediate(resolve));
          pressured = await t.request({ method: 'GET', url: '/server/ping' });
        }
      } finally {
        pressing = false;
      }
      assert.equal(pressured.statusCode, 503);
      assert.equal(errorCode(pressured), 'SERVICE_UNAVAILABLE', pressured.body);
      let recovered = 0;
      for (let i = 0; i < 100 && recovered !== 200; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        recovered = (await t.request({ method: 'GET', url: '/server/ping' })).statusCode;
      }
      assert.equal(recovered, 200);
    } finally {
      await t.close();
    }
  });

  it('enforces QUERY_LIMIT_MAX, MAX_RELATIONAL_DEPTH and the query-string depth and array limits', async () => {
    const t = await startTestApp('sqlite3', {
      env: {
        QUERY_LIMIT_MAX: '2',
        MAX_RELATIONAL_DEPTH: '2',
        QUERYSTRING_ARRAY_LIMIT: '3',
        QUERYSTRING_MAX_PARSE_DEPTH: '3',
      },
    });
    try {
      assert.equal(errorCode(await t.request({ method: 'GET', url: '/items/articles?limit=3' })), 'INVALID_QUERY');
      assert.equal(json(await t.request({ method: 'GET', url: '/items/articles?limit=-1' })).data.length, 2);
      assert.equal(json(await t.request({ method: 'GET', url: '/items/articles' })).data.length, 2);
      assert.equal(
        errorCode(await t.request({ method: 'GET', url: '/items/articles?fields=author.articles.title' })),
        'INVALID_QUERY',
      );
      // Beyond the array limit qs yields an object keyed by index; beyond the depth, a flattened key: both refused.
      const tooMany = await t.request({ method: 'GET', url: '/items/articles?fields[5]=id' });
      assert.equal(errorCode(tooMany), 'INVALID_QUERY');
      const tooDeep = await t.request({ method: 'GET', url: '/items/articles?filter[author][name][x][y][_eq]=1' });
      assert.equal(tooDeep.statusCode, 400);
    } finally {
      await t.close();
    }
  });
});
