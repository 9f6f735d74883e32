/**
 * /server endpoints and json-mode login, on every database this run can reach.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { ADMIN, errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { queryBuilder } from '../../src/db/connection.js';

for (const client of testClients()) {
  describe(`server endpoints and login (${clientLabel(client)})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(client, { fixture: false });
    });
    after(async () => {
      await t?.close();
    });

    it('GET /server/ping answers pong without auth, even with a bad token', async () => {
      for (const token of [null, 'garbage']) {
        const res = await t.request({ method: 'GET', url: '/server/ping', token });
        assert.equal(res.statusCode, 200);
        assert.equal(res.body, 'pong');
        assert.equal(res.headers['content-type'], 'text/html; charset=utf-8', 'as Directus answers it');
      }
    });

    it('GET /server/health reports the database, with details for admins only', async () => {
      const anon = await t.request({ method: 'GET', url: '/server/health', token: null });
      assert.equal(anon.statusCode, 200);
      assert.match(String(anon.headers['content-type']), /application\/health\+json/);
      // Only the status for anonymous callers; 'warn' when the database answered slowly (a loaded test machine).
      assert.deepEqual(Object.keys(json(anon)), ['status']);
      assert.ok(['ok', 'warn'].includes(json(anon).status));
      const admin = json(await t.request({ method: 'GET', url: '/server/health' }));
      assert.ok(['ok', 'warn'].includes(admin.status));
      const check = Object.values(admin.checks as Record<string, { status: string; componentType: string }[]>)[0]![0]!;
      assert.equal(check.componentType, 'datastore');
    });

    it('GET /server/info shows the project to everyone and limits to signed-in users', async () => {
      const anon = json(await t.request({ method: 'GET', url: '/server/info', token: null }));
      assert.equal(anon.data.project.project_name, 'Strata');
      assert.equal(anon.data.project.default_language, 'en-US');
      assert.equal(anon.data.queryLimit, undefined);
      const admin = json(await t.request({ method: 'GET', url: '/server/info' }));
      assert.deepEqual(admin.data.queryLimit, { default: 100, max: -1 });
      assert.equal(typeof admin.data.node.version, 'string');
    });

    it('POST /auth/login returns a working access token and a refresh token', async () => {
      const res = await t.request({
        method: 'POST',
        url: '/auth/login',
        token: null,
        payload: { email: ADMIN.email, password: ADMIN.password },
      });
      assert.equal(res.statusCode, 200, res.body);
      const { data } = json(res);
      assert.deepEqual(Object.keys(data).sort(), ['access_token', 'expires', 'refresh_token']);
      assert.equal(data.expires, 15 * 60 * 1000);
      assert.equal(typeof data.refresh_token, 'string');
      const info = await t.request({ method: 'GET', url: '/server/info', token: data.access_token });
      assert.equal(json(info).data.queryLimit.default, 100);
      const items = await t.request({ method: 'GET', url: '/items/service_users', token: data.access_token });
      assert.equal(errorCode(items), 'FORBIDDEN');
    });

    it('POST /auth/login refuses wrong credentials with 401 INVALID_CREDENTIALS and bad bodies with 400', async () => {
      for (const payload of [
        { email: ADMIN.email, password: 'wrong' },
        { email: 'nobody@example.com', password: ADMIN.password },
      ]) {
        const res = await t.request({ method: 'POST', url: '/auth/login', token: null, payload });
        assert.equal(res.statusCode, 401);
        assert.equal(errorCode(res), 'INVALID_CREDENTIALS');
        assert.doesNotMatch(res.body, /stack|select|SQL/i);
      }
      const missing = await t.request({
        method: 'POST',
        url: '/auth/login',
        token: null,
        payload: { email: ADMIN.email },
      });
      assert.equal(missing.statusCode, 400);
      assert.equal(errorCode(missing), 'INVALID_PAYLOAD');
      const badJson = await t.request({
        method: 'POST',
        url: '/auth/login',
        token: null,
        payload: '{"email":',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(errorCode(badJson), 'INVALID_PAYLOAD');
      const text = await t.request({
        method: 'POST',
        url: '/auth/login',
        token: null,
        payload: 'email=x',
        headers: { 'content-type': 'text/plain' },
      });
      assert.equal(text.statusCode, 415);
      assert.equal(errorCode(text), 'UNSUPPORTED_MEDIA_TYPE');
    });

    it('answers an unexpected database failure with a bare 500, never the database text', async () => {
      const broken = await startTestApp(client, { fixture: true });
      try {
        // The table disappears behind Strata's back: its cached schema still lists it.
        await queryBuilder(broken.context.db).schema.dropTable('articles_tags');
        const res = await broken.request({ method: 'GET', url: '/items/articles_tags' });
        assert.equal(res.statusCode, 500);
        assert.deepEqual(json(res), {
          errors: [{ message: 'An unexpected error occurred.', extensions: { code: 'INTERNAL_SERVER_ERROR' } }],
        });
      } finally {
        await broken.close();
      }
    });

    it('GET /server/health answers 503 when the database is gone', async () => {
      const down = await startTestApp(client, { fixture: false });
      try {
        // Gone for every process (in pair mode both workers' pools).
        for (const { context } of down.workers) await context.db.close();
        const res = await down.request({ method: 'GET', url: '/server/health', token: null });
        assert.equal(res.statusCode, 503);
        assert.match(String(res.headers['content-type']), /application\/health\+json/);
        assert.deepEqual(json(res), { status: 'error' });
        const items = await down.request({ method: 'GET', url: '/items/anything' });
        assert.equal(items.statusCode, 503);
        assert.equal(json(items).errors[0].extensions.code, 'SERVICE_UNAVAILABLE');
      } finally {
        // Closes the rest of the context too (its bus polls the closed database otherwise).
        await down.close();
      }
    });

    it('an expired access token answers 401 TOKEN_EXPIRED', async () => {
      // A TTL a loaded machine cannot outlast between login and the first request; the clock then passes it.
      const short = await startTestApp(client, { fixture: false, env: { ACCESS_TOKEN_TTL: '1h' } });
      try {
        const login = json(
          await short.request({
            method: 'POST',
            url: '/auth/login',
            token: null,
            payload: { email: ADMIN.email, password: ADMIN.password },
          }),
        );
        assert.equal(
          (await short.request({ method: 'GET', url: '/server/info', token: login.data.access_token })).statusCode,
          200,
        );
        short.clock.advance(3_600_000 + 1_100);
        const res = await short.request({ method: 'GET', url: '/server/info', token: login.data.access_token });
        assert.equal(res.statusCode, 401);
        assert.equal(errorCode(res), 'TOKEN_EXPIRED');
      } finally {
        await short.close();
      }
    });
  });
}
