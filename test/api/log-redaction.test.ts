/**
 * Secrets never reach the logs, at any level: a static token in `?access_token=`, the Authorization and Cookie
 * headers, passwords in login bodies. The server's own logger options (http/log-options.ts) at level `trace`, so
 * every line Fastify and Strata write is looked at.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { createApp } from '../../src/http/app.js';
import { loggerOptions, redactUrl } from '../../src/http/log-options.js';
import { ADMIN, startTestApp, type TestApp } from '../helpers/test-app.js';

describe('secrets in logs', () => {
  let t: TestApp;
  let lines: string[] = [];
  let app: ReturnType<typeof createApp>;
  before(async () => {
    t = await startTestApp('sqlite3');
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    app = createApp(t.context, { logger: { ...loggerOptions('trace'), stream }, warm: false });
    await app.ready();
  });
  after(async () => {
    await app?.close();
    await t?.close();
  });

  const assertNoSecret = (secret: string) => {
    assert.ok(lines.length > 0, 'something was logged');
    for (const line of lines) assert.ok(!line.includes(secret), `secret in log line: ${line}`);
  };

  it('replaces access_token values in logged URLs', async () => {
    lines = [];
    const res = await app.inject({ method: 'GET', url: `/users/me?fields=id&access_token=${ADMIN.token}` });
    assert.equal(res.statusCode, 200, res.body);
    const missing = await app.inject({ method: 'GET', url: `/no/such/route?access_token=${ADMIN.token}` });
    assert.equal(missing.statusCode, 404);
    assertNoSecret(ADMIN.token);
    assert.ok(
      lines.some((line) => line.includes('access_token=[redacted]')),
      lines.join('\n'),
    );
  });

  it('never logs Authorization, Cookie or passwords', async () => {
    lines = [];
    await app.inject({
      method: 'GET',
      url: '/server/ping',
      headers: { authorization: `Bearer ${ADMIN.token}`, cookie: 'service_session_token=cookie-secret-value' },
    });
    const login = await app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email: ADMIN.email, password: ADMIN.password },
    });
    assert.equal(login.statusCode, 200);
    const refresh = JSON.parse(login.body).data.refresh_token as string;
    await app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email: ADMIN.email, password: 'wrong-password-xyz' },
    });
    for (const secret of [ADMIN.token, 'cookie-secret-value', ADMIN.password, 'wrong-password-xyz', refresh])
      assertNoSecret(secret);
  });

  it('logs its own objects without their secrets', () => {
    lines = [];
    app.log.error(
      { password: 'p-secret', body: { access_token: 't-secret' }, headers: { authorization: 'Bearer h-secret' } },
      'a failure',
    );
    for (const secret of ['p-secret', 't-secret', 'h-secret']) assertNoSecret(secret);
    assert.equal(
      redactUrl('/a?x=1&access_token=abc&refresh_token=def#f'),
      '/a?x=1&access_token=[redacted]&refresh_token=[redacted]#f',
    );
  });
});
