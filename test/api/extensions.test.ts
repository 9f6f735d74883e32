/**
 * Extensions loaded from real folders (test/fixtures/extensions): a Directus hook (filter + action + schedule +
 * init, importing defineHook from @directus/extensions-sdk and createError from @directus/errors), an endpoint, a
 * bundle, and broken ones (a throw at load, a syntax error, a top-level await that never settles, a filter that never
 * answers, an unhandled rejection) that are skipped or bounded while the server keeps answering. Reload on change.
 */
import assert from 'node:assert/strict';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { ADMIN, startTestApp, type TestApp } from '../helpers/test-app.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/extensions');

type Row = Record<string, any>;

async function waitFor<T>(probe: () => Promise<T | undefined>, what: string, ms = 8000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

for (const client of testClients()) {
  describe(`extensions (${clientLabel(client)})`, () => {
    let t: TestApp;
    let dir: string;
    before(async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'strata-extensions-'));
      await cp(FIXTURES, dir, { recursive: true });
      t = await startTestApp(client, {
        oneWorker: "the extensions' log and outbox are read on t.context",
        env: {
          EXTENSIONS_PATH: dir,
          EXTENSIONS_AUTO_RELOAD: 'true',
          EXTENSIONS_FILTER_TIMEOUT: '300ms',
          EXTENSIONS_ENDPOINT_TIMEOUT: '300ms',
          EXTENSIONS_LOAD_TIMEOUT: '1s',
          FLOWS_RETRY_BASE: '100ms',
          CORS_ENABLED: 'true',
          CORS_ORIGIN: 'true',
        },
      });
    });
    after(async () => {
      await t?.close();
      await rm(dir, { recursive: true, force: true });
    });

    // Over a real socket: endpoints are Express apps writing to Node's own request and response.
    let base = '';
    const send = async (method: string, url: string, body?: unknown, token?: string | null) => {
      base ||= await t.app.listen({ host: '127.0.0.1', port: 0 });
      const bearer = token === undefined ? ADMIN.token : token;
      const res = await fetch(base + url, {
        method,
        headers: {
          ...(bearer === null ? {} : { authorization: `Bearer ${bearer}` }),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { statusCode: res.status, body: await res.text() };
    };
    const json = (res: { body: string }) => JSON.parse(res.body);

    it('loads the good extensions and skips the broken ones, naming why', () => {
      const { loaded, failed } = t.app.extensions;
      assert.deepEqual(loaded.map((e) => e.name).sort(), [
        'directus-extension-hello',
        'directus-extension-kit',
        'directus-extension-slugger',
        'slow-filter',
      ]);
      const reasons = Object.fromEntries(failed.map((f) => [f.name, f.error]));
      assert.match(reasons['broken-throw']!, /broken at load/);
      assert.ok(reasons['broken-syntax'], 'the syntax error is reported');
      assert.match(reasons['broken-hang']!, /did not finish loading/);
    });

    it('a Directus hook filter changes the payload in the transaction', async () => {
      const res = await send('POST', '/items/articles', { title: 'Hello Hooks' });
      assert.equal(res.statusCode, 200, res.body);
      const item = json(res).data;
      assert.equal(item.slug, 'hello-hooks');
      assert.equal(item.body, 'by admin in articles');
    });

    it('a hook that throws a createError error refuses with its code; nothing is written', async () => {
      const res = await send('POST', '/items/articles', { title: 'a forbidden title' });
      assert.equal(res.statusCode, 422, res.body);
      assert.equal(json(res).errors[0].extensions.code, 'TITLE_REFUSED');
      const rows = json(await send('GET', '/items/articles?filter[title][_eq]=a forbidden title')).data;
      assert.deepEqual(rows, []);
    });

    it('a Directus hook items.query filter narrows the reads of its collection', async () => {
      assert.equal((await send('POST', '/items/tags', { name: 'shown-1' })).statusCode, 200);
      // Written, but its read back is filtered too: 204, as Directus answers a create it cannot read back.
      assert.equal((await send('POST', '/items/tags', { name: 'hidden-1' })).statusCode, 204);
      const rows = json(await send('GET', '/items/tags?filter[name][_in]=hidden-1,shown-1&fields=name')).data;
      assert.deepEqual(rows, [{ name: 'shown-1' }]);
    });

    it('an action writes through the services after commit', async () => {
      const author = json(await send('POST', '/items/authors', { name: 'Ada' })).data;
      const tag = await waitFor(async () => {
        const rows = json(await send('GET', `/items/tags?filter[name][_eq]=author-${author.id}-Ada`)).data;
        return rows.length ? rows[0] : undefined;
      }, 'the action');
      assert.equal(tag.name, `author-${author.id}-Ada`);
    });

    it('an action that throws is tried again through the outbox, and logged', async () => {
      const author = json(await send('POST', '/items/authors', { name: 'Grace' })).data;
      await waitFor(async () => {
        const rows = json(await send('GET', `/items/tags?filter[name][_eq]=retried-${author.id}-Grace`)).data;
        return rows.length ? rows[0] : undefined;
      }, 'the retried action');
      const log = await waitFor(async () => {
        const rows = json(await send('GET', '/flows/deliveries?status=delivered&limit=1000')).data as Row[];
        const mine = rows.filter((d) => d.event === 'authors.items.create' && d.payload?.meta?.key === author.id);
        return mine.length === 2 ? mine : undefined;
      }, 'both actions logged');
      assert.deepEqual(log.map((d) => d.attempts).sort(), [1, 2]);
      assert.ok(log.every((d) => String(d.flow).startsWith('hook:')));
      assert.ok(log.some((d) => d.payload.hook === 'directus-extension-slugger:authors.items.create:1'));
    });

    it('a schedule runs (every second)', async () => {
      await waitFor(async () => {
        const rows = json(await send('GET', '/items/tags?filter[name][_starts_with]=tick-')).data;
        return rows.length ? rows : undefined;
      }, 'a scheduled tick');
    });

    it('an endpoint is mounted under its id, behind auth, with Express routing', async () => {
      const admin = await send('GET', '/hello');
      assert.equal(admin.statusCode, 200, admin.body);
      assert.equal(json(admin).admin, true);
      const cors = await fetch(`${base}/hello`, { headers: { origin: 'http://app.example' } });
      assert.equal(cors.headers.get('access-control-allow-origin'), 'http://app.example');
      const anonymous = await send('GET', '/hello', undefined, null);
      assert.deepEqual(json(anonymous), { hello: 'world', user: null, admin: false });
      const echo = await send('POST', '/hello/echo/ada?q=1', { a: 1 });
      assert.deepEqual(json(echo), { name: 'ada', body: { a: 1 }, q: '1' });
      const count = await send('GET', '/hello/count');
      assert.equal(count.statusCode, 200, count.body);
      assert.ok(json(count).count > 0);
      const missing = await send('GET', '/hello/nothing-here');
      assert.equal(missing.statusCode, 404);
      assert.equal(json(missing).errors[0].extensions.code, 'ROUTE_NOT_FOUND');
      // Strata's own routes are never shadowed, and unknown paths still answer 404.
      assert.equal((await send('GET', '/nowhere')).statusCode, 404);
    });

    it("an endpoint's services read with the caller's accountability", async () => {
      const everything = json(await send('GET', '/hello/authors')).data;
      assert.equal(everything.length, 2);
      const refused = await send('GET', '/hello/authors', undefined, null);
      assert.equal(refused.statusCode, 403, refused.body);
      assert.equal(json(refused).errors[0].extensions.code, 'FORBIDDEN');
    });

    it('errors in endpoints are coded; an endpoint that never answers is bounded', async () => {
      const boom = await send('GET', '/hello/boom');
      assert.equal(boom.statusCode, 400, boom.body);
      assert.equal(json(boom).errors[0].extensions.code, 'INVALID_PAYLOAD');
      const forbidden = await send('GET', '/hello/async-boom');
      assert.equal(forbidden.statusCode, 403, forbidden.body);
      const never = await send('GET', '/hello/never');
      assert.equal(never.statusCode, 503, never.body);
      assert.equal((await send('GET', '/server/ping', undefined, null)).statusCode, 200);
    });

    it("endpoints answer Fastify's inject too (light-my-request's request and response)", async () => {
      const res = await t.request({ method: 'POST', url: '/hello/echo/inj?q=3', payload: { b: 2 } });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(JSON.parse(res.body), { name: 'inj', body: { b: 2 }, q: '3' });
    });

    it("a bundle's hook and endpoint both load", async () => {
      const res = await send('GET', '/kit');
      assert.deepEqual(json(res), { from: 'bundle' });
      const tag = json(await send('POST', '/items/tags', { name: 'stamp-1' })).data;
      assert.equal(tag.name, 'stamp-1-stamped');
    });

    it('a filter that never answers and an unhandled rejection leave the server answering', async () => {
      const slow = await send('POST', '/items/headings', { text: 'never' });
      assert.equal(slow.statusCode, 503, slow.body);
      assert.equal((await send('GET', '/server/ping', undefined, null)).statusCode, 200);
    });

    it('a new extension folder is loaded on change (EXTENSIONS_AUTO_RELOAD)', async () => {
      const folder = path.join(dir, 'late-endpoint');
      await mkdir(path.join(folder, 'dist'), { recursive: true });
      await writeFile(
        path.join(folder, 'dist/index.js'),
        "export default { id: 'late', handler: (router) => router.get('/', (_q, s) => s.json({ late: true })) };\n",
      );
      await writeFile(
        path.join(folder, 'package.json'),
        JSON.stringify({
          name: 'late-endpoint',
          type: 'module',
          'directus:extension': { type: 'endpoint', path: 'dist/index.js' },
        }),
      );
      const body = await waitFor(async () => {
        const res = await send('GET', '/late');
        return res.statusCode === 200 ? json(res) : undefined;
      }, 'the reload');
      assert.deepEqual(body, { late: true });
      // The hooks of the reloaded set are registered once, not twice.
      const res = await send('POST', '/items/tags', { name: 'stamp-2' });
      assert.equal(json(res).data.name, 'stamp-2-stamped');
    });
  });
}
