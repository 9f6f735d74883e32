/**
 * POST /files/import: a file fetched from a URL (a server of the test's own on loopback, which the setting
 * FILES_IMPORT_ALLOW_LOOPBACK admits) and stored as an upload; private and denied addresses (also after a redirect),
 * the size limit, the timeout and failing servers leave no row and no bytes.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';

async function serveFiles(png: Buffer): Promise<{ base: string; server: http.Server }> {
  const server = http.createServer((request, response) => {
    const url = request.url ?? '/';
    if (url === '/images/pic.png') response.writeHead(200, { 'content-type': 'image/png' }).end(png);
    else if (url === '/named')
      response
        .writeHead(200, { 'content-type': 'text/plain', 'content-disposition': 'attachment; filename="report.txt"' })
        .end('report');
    else if (url === '/redirect') response.writeHead(302, { location: '/images/pic.png' }).end();
    else if (url === '/to-private') response.writeHead(302, { location: 'http://10.1.2.3/x' }).end();
    else if (url === '/big') response.writeHead(200, { 'content-type': 'text/plain' }).end(Buffer.alloc(80 * 1024, 65));
    else if (url === '/big-declared')
      response.writeHead(200, { 'content-length': String(10 * 1024 * 1024) }).write('start');
    else if (url === '/slow') response.writeHead(200, { 'content-type': 'text/plain' }).write('partial');
    else response.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { base: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server };
}

for (const client of testClients()) {
  describe(`files import (${clientLabel(client)})`, () => {
    let t: TestApp;
    let root: string;
    let png: Buffer;
    let remote: { base: string; server: http.Server };
    before(async () => {
      root = mkdtempSync(path.join(tmpdir(), 'strata-import-'));
      png = await sharp({ create: { width: 16, height: 9, channels: 3, background: '#123456' } })
        .png()
        .toBuffer();
      remote = await serveFiles(png);
      t = await startTestApp(client, {
        env: {
          STORAGE_LOCAL_ROOT: root,
          FILES_IMPORT_ALLOW_LOOPBACK: 'true',
          FILES_IMPORT_TIMEOUT: '500ms',
          FILES_MAX_UPLOAD_SIZE: '64kb',
        },
      });
    });
    after(async () => {
      await t?.close();
      remote?.server.closeAllConnections();
      remote?.server.close();
      rmSync(root, { recursive: true, force: true });
    });

    const importUrl = (url: string, data?: Record<string, unknown>) =>
      t.request({ method: 'POST', url: '/files/import', payload: { url, data } });
    const rowCount = async () => json(await t.request({ method: 'GET', url: '/files?fields=id&limit=-1' })).data.length;
    const stored = () => readdirSync(root).filter((name) => !name.startsWith('.'));

    it('stores the file with the given fields, its sniffed type and dimensions', async () => {
      const res = await importUrl(`${remote.base}/images/pic.png`, { title: 'Imported', tags: ['x'] });
      assert.equal(res.statusCode, 200, res.body);
      const file = json(res).data;
      assert.equal(file.title, 'Imported');
      assert.deepEqual(file.tags, ['x']);
      assert.equal(file.filename_download, 'pic.png');
      assert.equal(file.type, 'image/png');
      assert.deepEqual([file.width, file.height], [16, 9]);
      const asset = await t.request({ method: 'GET', url: `/assets/${file.id}` });
      assert.deepEqual(asset.rawPayload, png);
      const named = json(await importUrl(`${remote.base}/named`)).data;
      assert.equal(named.filename_download, 'report.txt');
      const redirected = await importUrl(`${remote.base}/redirect`);
      assert.equal(json(redirected).data.type, 'image/png');
    });

    it('GraphQL import_file does the same', async () => {
      const res = await t.request({
        method: 'POST',
        url: '/graphql/system',
        payload: {
          query: `mutation { import_file(url: "${remote.base}/images/pic.png", data: {title: "Via GraphQL"}) { title type width } }`,
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(json(res).data, { import_file: { title: 'Via GraphQL', type: 'image/png', width: 16 } });
      const denied = await t.request({
        method: 'POST',
        url: '/graphql/system',
        payload: { query: `mutation { import_file(url: "http://10.0.0.1/x") { id } }` },
      });
      assert.equal(json(denied).errors[0].extensions.code, 'INVALID_PAYLOAD');
    });

    it('refuses what it must not fetch, and keeps nothing of what fails', async () => {
      const rows = await rowCount();
      const files = stored().length;
      const cases: [string, number, string][] = [
        ['ftp://example.com/x', 400, 'INVALID_PAYLOAD'],
        ['not a url', 400, 'INVALID_PAYLOAD'],
        ['http://10.0.0.1/x', 400, 'INVALID_PAYLOAD'],
        ['http://169.254.169.254/latest/meta-data', 400, 'INVALID_PAYLOAD'],
        ['http://[::ffff:10.0.0.1]/x', 400, 'INVALID_PAYLOAD'],
        [`${remote.base}/to-private`, 400, 'INVALID_PAYLOAD'],
        [`${remote.base}/missing`, 503, 'SERVICE_UNAVAILABLE'],
        [`${remote.base}/big`, 413, 'CONTENT_TOO_LARGE'],
        [`${remote.base}/big-declared`, 413, 'CONTENT_TOO_LARGE'],
        [`${remote.base}/slow`, 503, 'SERVICE_UNAVAILABLE'],
      ];
      for (const [url, status, code] of cases) {
        const res = await importUrl(url);
        assert.equal(res.statusCode, status, `${url}: ${res.body}`);
        assert.equal(errorCode(res), code, url);
      }
      assert.equal(await rowCount(), rows);
      assert.equal(stored().length, files);
    });
  });
}

describe('files import: loopback and the deny list', () => {
  it('refuses loopback unless allowed, and what IMPORT_IP_DENY_LIST names', async () => {
    const remote = await serveFiles(Buffer.from('x'));
    const strict = await startTestApp('sqlite3', { env: { STORAGE_LOCAL_ROOT: path.join(tmpdir(), 'strata-none') } });
    const listed = await startTestApp('sqlite3', {
      env: { FILES_IMPORT_ALLOW_LOOPBACK: 'true', IMPORT_IP_DENY_LIST: '127.0.0.0/8' },
    });
    try {
      for (const app of [strict, listed]) {
        const res = await app.request({
          method: 'POST',
          url: '/files/import',
          payload: { url: `${remote.base}/named` },
        });
        assert.equal(res.statusCode, 400, res.body);
        assert.match(res.body, /denied address/);
      }
      const local = await strict.request({
        method: 'POST',
        url: '/files/import',
        payload: { url: 'http://localhost:1/x' },
      });
      assert.equal(local.statusCode, 400, local.body);
    } finally {
      await strict.close();
      await listed.close();
      remote.server.closeAllConnections();
      remote.server.close();
    }
  });
});
