/**
 * CORS (CORS_* settings, Directus docs: CORS settings): off by default; when on, preflights are answered for the allowed origins
 * on every route (GraphQL included) and responses carry the allow, credentials and exposed headers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const APP = 'https://app.example.com';

const items = (header: unknown) =>
  String(header)
    .split(',')
    .map((item) => item.trim());

const preflight = (t: TestApp, url: string, origin: string, method = 'PATCH') =>
  t.request({
    method: 'OPTIONS',
    url,
    token: null,
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'content-type,authorization',
    },
  });

for (const client of testClients()) {
  describe(`CORS (${clientLabel(client)})`, () => {
    let off: TestApp;
    let on: TestApp;
    let reflecting: TestApp;
    before(async () => {
      off = await startTestApp(client, { fixture: false });
      on = await startTestApp(client, {
        env: { CORS_ENABLED: 'true', CORS_ORIGIN: `${APP}, https://admin.example.com` },
      });
      reflecting = await startTestApp(client, {
        fixture: false,
        env: {
          CORS_ENABLED: 'true',
          CORS_ORIGIN: 'true',
          CORS_METHODS: 'GET,POST,PATCH,DELETE,SEARCH',
          CORS_MAX_AGE: '60',
          CORS_CREDENTIALS: 'false',
        },
      });
    });
    after(async () => {
      await Promise.all([off?.close(), on?.close(), reflecting?.close()]);
    });

    it('sends no CORS headers unless CORS_ENABLED', async () => {
      const response = await off.request({ method: 'GET', url: '/server/ping', headers: { origin: APP } });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['access-control-allow-origin'], undefined);
    });

    it('answers preflights of allowed origins on REST and GraphQL routes, with the configured headers', async () => {
      for (const url of ['/items/articles/1', '/graphql', '/users/me']) {
        const response = await preflight(on, url, APP);
        assert.equal(response.statusCode, 204, `${url}: ${response.body}`);
        assert.equal(response.headers['access-control-allow-origin'], APP);
        assert.deepEqual(items(response.headers['access-control-allow-methods']), ['GET', 'POST', 'PATCH', 'DELETE']);
        assert.deepEqual(items(response.headers['access-control-allow-headers']), ['Content-Type', 'Authorization']);
        assert.equal(response.headers['access-control-allow-credentials'], 'true');
        assert.equal(response.headers['access-control-max-age'], '18000');
      }
    });

    it('marks responses to allowed origins, and no others', async () => {
      const allowed = await on.request({ method: 'GET', url: '/items/articles?limit=1', headers: { origin: APP } });
      assert.equal(allowed.statusCode, 200);
      assert.equal(allowed.headers['access-control-allow-origin'], APP);
      assert.equal(allowed.headers['access-control-expose-headers'], 'Content-Range');
      assert.match(String(allowed.headers.vary), /origin/i);
      const other = await on.request({
        method: 'GET',
        url: '/items/articles?limit=1',
        headers: { origin: 'https://evil.example.org' },
      });
      assert.equal(other.statusCode, 200);
      assert.equal(other.headers['access-control-allow-origin'], undefined);
      const refused = await preflight(on, '/items/articles', 'https://evil.example.org');
      assert.equal(refused.headers['access-control-allow-origin'], undefined);
    });

    it('reflects any origin with CORS_ORIGIN=true and follows the other settings', async () => {
      const response = await preflight(reflecting, '/items/articles', 'http://localhost:5173', 'SEARCH');
      assert.equal(response.statusCode, 204);
      assert.equal(response.headers['access-control-allow-origin'], 'http://localhost:5173');
      assert.deepEqual(items(response.headers['access-control-allow-methods']), [
        'GET',
        'POST',
        'PATCH',
        'DELETE',
        'SEARCH',
      ]);
      assert.equal(response.headers['access-control-max-age'], '60');
      assert.equal(response.headers['access-control-allow-credentials'], undefined);
    });
  });
}
