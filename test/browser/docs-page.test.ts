/**
 * /docs on every database: the page and its assets are served from the installed swagger-ui-dist (nothing from
 * another host), DOCS_ENABLED=false removes them, and in headless Chromium (Debian's `chromium`, driven by
 * playwright-core) the page renders the caller's collections: all of them for an admin's token, only the granted
 * ones for the public.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { chromiumPath, launch } from '../e2e/browser.js';
import { grantPublic } from '../helpers/access-fixture.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { ADMIN, errorCode, listenOnLoopback, startTestApp, type TestApp } from '../helpers/test-app.js';

const CHROMIUM = chromiumPath();

/** The tag sections Swagger UI rendered (one per collection or route group), by tag name. */
async function renderedTags(
  browser: Browser,
  url: string,
): Promise<{ tags: string[]; external: string[]; blocked: string[] }> {
  const page = await browser.newPage();
  const external: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(new URL(url).origin)) external.push(request.url());
  });
  // Chromium reports what the page's Content-Security-Policy blocked as a console error.
  const blocked: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) blocked.push(message.text());
  });
  try {
    await page.goto(url);
    // Swagger UI renders the sections a few at a time: wait until every tag of the loaded document has its heading.
    await page.waitForFunction(
      () => {
        const ui = (
          window as unknown as {
            ui?: { specSelectors: { loadingStatus(): string; taggedOperations(): { size: number } } };
          }
        ).ui;
        if (!ui || ui.specSelectors.loadingStatus() !== 'success') return false;
        const count = document.querySelectorAll('h3.opblock-tag').length;
        return count > 0 && count === ui.specSelectors.taggedOperations().size;
      },
      undefined,
      { timeout: 30_000 },
    );
    const tags = await page.$$eval('h3.opblock-tag', (nodes) =>
      nodes.map((node) => node.getAttribute('data-tag') ?? ''),
    );
    return { tags, external, blocked };
  } finally {
    await page.close();
  }
}

for (const client of testClients()) {
  describe(`/docs page (${clientLabel(client)})`, () => {
    let t: TestApp;
    let base: string;
    let browser: Browser | undefined;

    before(async () => {
      t = await startTestApp(client, { relations: true });
      await grantPublic(t, [{ collection: 'tags', fields: 'id,name' }]);
      base = await listenOnLoopback(t);
      if (CHROMIUM) browser = await launch(CHROMIUM);
    });
    after(async () => {
      await browser?.close();
      await t?.close();
    });

    it('serves the page and its assets from the installed package, with no token needed', async () => {
      const pageResponse = await t.request({ method: 'GET', url: '/docs', token: null });
      assert.equal(pageResponse.statusCode, 200);
      assert.match(String(pageResponse.headers['content-type']), /text\/html/);
      const sources = [...pageResponse.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
      assert.ok(sources.length >= 3);
      for (const source of sources) {
        assert.ok(source.startsWith('/docs/'), `${source} is served here`);
        const asset = await t.request({ method: 'GET', url: source, token: null });
        assert.equal(asset.statusCode, 200, source);
        assert.ok(asset.rawPayload.length > 0);
        assert.equal(asset.headers['x-content-type-options'], 'nosniff', source);
      }
      const init = await t.request({ method: 'GET', url: '/docs/init.js', token: null });
      assert.match(init.body, /\/server\/specs\/oas/);
      assert.equal(init.headers['x-content-type-options'], 'nosniff');
      const unknown = await t.request({ method: 'GET', url: '/docs/assets/package.json', token: null });
      assert.equal(unknown.statusCode, 404);
      assert.equal(errorCode(unknown), 'ROUTE_NOT_FOUND');
    });

    it('sends a strict Content-Security-Policy, no framing, no sniffing and no Referer', async () => {
      const response = await t.request({ method: 'GET', url: '/docs', token: null });
      const policy = Object.fromEntries(
        String(response.headers['content-security-policy'])
          .split(';')
          .map((part) => part.trim().split(/\s+/))
          .map(([name, ...values]) => [name, values]),
      );
      assert.deepEqual(policy['script-src'], ["'self'"], 'scripts from this origin only: no inline script, no eval');
      assert.deepEqual(policy['default-src'], ["'self'"]);
      assert.deepEqual(policy['frame-ancestors'], ["'none'"]);
      assert.deepEqual(policy['object-src'], ["'none'"]);
      assert.equal(response.headers['x-frame-options'], 'DENY');
      assert.equal(response.headers['x-content-type-options'], 'nosniff');
      assert.equal(response.headers['referrer-policy'], 'no-referrer');
      // The page's own script is a file: an inline one would be refused.
      assert.doesNotMatch(response.body, /<script(?![^>]*\ssrc=)[^>]*>/);
    });

    it('is off with DOCS_ENABLED=false', async () => {
      const off = await startTestApp(client, { fixture: false, env: { DOCS_ENABLED: 'false' } });
      try {
        const response = await off.request({ method: 'GET', url: '/docs', token: null });
        assert.equal(response.statusCode, 404);
        assert.equal(errorCode(response), 'ROUTE_NOT_FOUND');
        assert.equal(
          (await off.request({ method: 'GET', url: '/server/specs/oas' })).statusCode,
          200,
          'the document stays',
        );
      } finally {
        await off.close();
      }
    });

    it(
      'renders the caller’s collections in Chromium',
      { skip: CHROMIUM ? false : 'no chromium on PATH (apt-get install chromium)' },
      async () => {
        const admin = await renderedTags(browser!, `${base}/docs?access_token=${ADMIN.token}`);
        for (const tag of [
          'ItemsArticles',
          'ItemsAuthors',
          'ItemsTags',
          'ItemsPagesSections',
          'Users',
          'Authentication',
        ])
          assert.ok(admin.tags.includes(tag), `${tag} in ${admin.tags.join(', ')}`);
        assert.deepEqual(admin.external, [], 'nothing is fetched from another host');
        assert.deepEqual(admin.blocked, [], 'the page runs under its Content-Security-Policy');

        const anonymous = await renderedTags(browser!, `${base}/docs`);
        assert.ok(anonymous.tags.includes('ItemsTags'), anonymous.tags.join(', '));
        // (Users stays: anonymous callers may register and accept invitations, routes Directus tags Users too.)
        for (const hidden of ['ItemsArticles', 'ItemsAuthors']) assert.ok(!anonymous.tags.includes(hidden), hidden);
      },
    );
  });
}
