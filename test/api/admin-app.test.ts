/**
 * Strata Studio's static route: /admin serves the built app (npm test builds it first), deep links get the app's
 * page, hashed assets are cached for good, a missing asset is a coded 404, nothing outside dist/studio is
 * reachable, and ADMIN_APP_ENABLED=false removes the route.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { createApp } from '../../src/http/app.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { errorCode, startTestApp, type TestApp } from '../helpers/test-app.js';

for (const client of testClients()) {
  describe(`admin app at /admin (${clientLabel(client)})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(client, { fixture: false });
    });
    after(() => t.close());

    it('serves the app page without authentication, not cached, with a same-origin content policy', async () => {
      for (const url of ['/admin', '/admin/']) {
        const response = await t.request({ method: 'GET', url, token: null });
        assert.equal(response.statusCode, 200);
        assert.match(String(response.headers['content-type']), /^text\/html/);
        assert.match(response.body, /<div id="app"><\/div>/);
        assert.equal(response.headers['cache-control'], 'no-cache');
        const policy = String(response.headers['content-security-policy']);
        assert.match(policy, /default-src 'self'/);
        assert.match(policy, /script-src 'self'(;|$)/);
        assert.match(policy, /frame-ancestors 'none'/);
        // <style> elements (the code editor's) only with this response's nonce, which the page carries.
        const nonce = /style-src 'self' 'nonce-([A-Za-z0-9+/=]{24})'(;|$)/.exec(policy)?.[1];
        assert.ok(nonce, policy);
        assert.ok(response.body.includes(`<meta name="style-nonce" content="${nonce}">`), response.body);
        assert.equal(response.headers['x-frame-options'], 'DENY');
        assert.equal(response.headers['x-content-type-options'], 'nosniff');
        // The built page loads its scripts as files: an inline one would be refused by script-src 'self'.
        assert.doesNotMatch(response.body, /<script(?![^>]*\ssrc=)[^>]*>/);
      }
    });

    it('answers deep links of the app with its page, even with a bad token', async () => {
      const response = await t.request({ method: 'GET', url: '/admin/content/articles/12?x=1', token: 'not-a-token' });
      assert.equal(response.statusCode, 200);
      assert.match(response.body, /<div id="app"><\/div>/);
    });

    it('serves the hashed assets the page names, cached as immutable, and every script comes from /admin', async () => {
      const page = await t.request({ method: 'GET', url: '/admin/', token: null });
      const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)]
        .map((m) => m[1]!)
        .filter((u) => !u.startsWith('data:'));
      assert.ok(assets.length >= 2, 'a script and a stylesheet');
      for (const asset of assets) {
        assert.match(asset, /^\/admin\/assets\//);
        const response = await t.request({ method: 'GET', url: asset, token: null });
        assert.equal(response.statusCode, 200, asset);
        assert.match(String(response.headers['content-type']), asset.endsWith('.js') ? /javascript/ : /css/);
        assert.equal(response.headers['cache-control'], 'public, max-age=31536000, immutable');
        assert.equal(response.headers['x-content-type-options'], 'nosniff');
      }
    });

    it('ships less than 200 KB of gzipped JavaScript for the first screen', async () => {
      // The sign-in screen needs the entry script and the chunks it preloads; views load on demand.
      const page = await t.request({ method: 'GET', url: '/admin/', token: null });
      const scripts = [
        ...page.body.matchAll(/<(?:script[^>]+src|link[^>]+rel="modulepreload"[^>]+href)="([^"]+\.js)"/g),
      ].map((m) => m[1]!);
      assert.ok(scripts.length >= 1);
      let bytes = 0;
      for (const script of scripts)
        bytes += gzipSync((await t.request({ method: 'GET', url: script, token: null })).rawPayload).length;
      assert.ok(bytes < 200 * 1024, `${bytes} bytes`);
    });

    it('answers a missing asset with 404 ROUTE_NOT_FOUND, not the app page', async () => {
      for (const url of ['/admin/assets/gone-1234.js', '/admin/favicon.png']) {
        const response = await t.request({ method: 'GET', url, token: null });
        assert.equal(response.statusCode, 404, url);
        assert.equal(errorCode(response), 'ROUTE_NOT_FOUND');
      }
    });

    it('reaches nothing outside the built app', async () => {
      for (const url of [
        '/admin/../package.json',
        '/admin/%2e%2e/%2e%2e/package.json',
        '/admin/..%2f..%2fpackage.json',
      ]) {
        const response = await t.request({ method: 'GET', url, token: null });
        assert.doesNotMatch(response.body, /"name": "strata"/, url);
      }
    });

    it('sends / to the app', async () => {
      const response = await t.request({ method: 'GET', url: '/', token: null });
      assert.equal(response.statusCode, 302);
      assert.equal(response.headers.location, '/admin/');
    });

    it('answers 503 SERVICE_UNAVAILABLE when the app is not built', async () => {
      const empty = mkdtempSync(path.join(tmpdir(), 'strata-studio-'));
      const app = createApp(t.context, { adminAppDir: empty, warm: false });
      try {
        const response = await app.inject({ method: 'GET', url: '/admin/content' });
        assert.equal(response.statusCode, 503);
        assert.equal(errorCode(response), 'SERVICE_UNAVAILABLE');
      } finally {
        await app.close();
        rmSync(empty, { recursive: true });
      }
    });
  });
}

describe('ADMIN_APP_ENABLED=false', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp('sqlite3', { fixture: false, env: { ADMIN_APP_ENABLED: 'false' } });
  });
  after(() => t.close());

  it('removes /admin and the redirect of /', async () => {
    for (const url of ['/admin', '/admin/assets/x.js', '/']) {
      const response = await t.request({ method: 'GET', url, token: null });
      assert.equal(response.statusCode, 404, url);
      assert.equal(errorCode(response), 'ROUTE_NOT_FOUND');
    }
  });
});
