/**
 * Resumable uploads over /files/tus (tus 1.0, TUS_ENABLED): creation writes a pending row, PATCH appends at
 * Upload-Offset (409 on a wrong one), HEAD tells the offset, completion measures the file like POST /files and clears
 * tus_id, DELETE terminates (row gone); the size limit (413), the create rule (403), and 404 when tus is off.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createPolicy, createUserWithPolicies } from '../helpers/access-fixture.js';
import sharp from 'sharp';
import { TestS3 } from '../helpers/s3-server.js';

const TUS = { 'tus-resumable': '1.0.0' };
const b64 = (text: string) => Buffer.from(text).toString('base64');

for (const client of testClients()) {
  describe(`files over tus (${clientLabel(client)})`, () => {
    let t: TestApp;
    let root: string;
    let png: Buffer;
    before(async () => {
      root = mkdtempSync(path.join(tmpdir(), 'strata-tus-'));
      png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#c81e1e' } })
        .png()
        .toBuffer();
      t = await startTestApp(client, {
        env: {
          STORAGE_LOCAL_ROOT: root,
          FILES_MAX_UPLOAD_SIZE: '64kb',
          FILES_MIME_TYPE_ALLOW_LIST: 'image/*',
          TUS_ENABLED: 'true',
        },
      });
    });
    after(async () => {
      await t?.close();
      rmSync(root, { recursive: true, force: true });
    });

    const create = (length: number, metadata: string, token?: string | null) =>
      t.request({
        method: 'POST',
        url: '/files/tus',
        headers: { ...TUS, 'upload-length': String(length), 'upload-metadata': metadata },
        token,
      });
    const patch = (url: string, offset: number, bytes: Buffer) =>
      t.request({
        method: 'PATCH',
        url,
        headers: { ...TUS, 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' },
        payload: bytes,
      });
    const uploadPath = (location: string | undefined) => new URL(String(location), 'http://localhost').pathname;

    it('creates, takes two chunks, tells the offset, and completes into a measured file served by /assets', async () => {
      const created = await create(png.length, `filename ${b64('red.png')},type ${b64('image/png')}`);
      assert.equal(created.statusCode, 201, created.body);
      const url = uploadPath(created.headers.location as string);
      const id = url.split('/').pop()!;
      const pendingRow = json(await t.request({ method: 'GET', url: `/files/${id}?fields=tus_id,filename_download` }));
      assert.deepEqual(pendingRow.data, { tus_id: id, filename_download: 'red.png' });

      const half = Math.floor(png.length / 2);
      const first = await patch(url, 0, png.subarray(0, half));
      assert.equal(first.statusCode, 204, first.body);
      assert.equal(first.headers['upload-offset'], String(half));
      const head = await t.request({ method: 'HEAD', url, headers: TUS });
      assert.equal(head.statusCode, 200);
      assert.equal(head.headers['upload-offset'], String(half));
      assert.equal(head.headers['upload-length'], String(png.length));

      const wrong = await patch(url, 0, png.subarray(half));
      assert.equal(wrong.statusCode, 409, wrong.body);

      const last = await patch(url, half, png.subarray(half));
      assert.equal(last.statusCode, 204, last.body);
      const row = json(await t.request({ method: 'GET', url: `/files/${id}` })).data;
      assert.equal(row.tus_id, null);
      assert.equal(row.tus_data, null);
      assert.equal(row.type, 'image/png');
      assert.equal(Number(row.filesize), png.length);
      assert.equal(row.width, 40);
      assert.equal(row.height, 30);
      assert.equal(row.title, 'Red');
      const parts = readdirSync(path.join(root, '.tus')).filter((name) => name.startsWith(id));
      assert.deepEqual(parts, [], 'the parts are removed once the file is stored');
      const asset = await t.request({ method: 'GET', url: `/assets/${id}` });
      assert.equal(asset.statusCode, 200);
      assert.deepEqual(asset.rawPayload, png);
    });

    it('refuses an upload longer than FILES_MAX_UPLOAD_SIZE with 413, and writes no row', async () => {
      const before = json(await t.request({ method: 'GET', url: '/files?aggregate[count]=*' })).data[0].count;
      const res = await create(65 * 1024, `filename ${b64('big.bin')}`);
      assert.equal(res.statusCode, 413, res.body);
      const after = json(await t.request({ method: 'GET', url: '/files?aggregate[count]=*' })).data[0].count;
      assert.equal(Number(after), Number(before));
    });

    it('needs the create rule on service_files (403)', async () => {
      const none = await createUserWithPolicies(t, [await createPolicy(t, { permissions: [] })]);
      const res = await create(10, `filename ${b64('a.txt')}`, none.token);
      assert.equal(res.statusCode, 403, res.body);
      assert.equal(json(res).errors[0].extensions.code, 'FORBIDDEN');
      const anonymous = await create(10, `filename ${b64('a.txt')}`, null);
      assert.equal(anonymous.statusCode, 403, anonymous.body);
    });

    it('a completed upload the upload step refuses (type not allowed) answers 415 and leaves no row nor bytes', async () => {
      const created = await create(5, `filename ${b64('note.png')},type ${b64('image/png')}`);
      assert.equal(created.statusCode, 201, created.body);
      const url = uploadPath(created.headers.location as string);
      const id = url.split('/').pop()!;
      const last = await patch(url, 0, Buffer.from('hello'));
      assert.equal(last.statusCode, 415, last.body);
      assert.equal(json(last).errors[0].extensions.code, 'UNSUPPORTED_MEDIA_TYPE');
      assert.equal((await t.request({ method: 'GET', url: `/files/${id}` })).statusCode, 403);
      assert.deepEqual(
        readdirSync(root).filter((name) => name.startsWith(id)),
        [],
      );
    });

    it('a terminated upload takes its pending row with it', async () => {
      const created = await create(100, `filename ${b64('gone.txt')},type ${b64('text/plain')}`);
      assert.equal(created.statusCode, 201, created.body);
      const url = uploadPath(created.headers.location as string);
      const id = url.split('/').pop()!;
      assert.equal((await patch(url, 0, Buffer.from('hello'))).statusCode, 204);
      const gone = await t.request({ method: 'DELETE', url, headers: TUS });
      assert.equal(gone.statusCode, 204, gone.body);
      // The row goes after the answer (the library's termination event): wait for it.
      for (let i = 0; i < 50; i++) {
        const res = await t.request({ method: 'GET', url: `/files/${id}` });
        if (res.statusCode !== 200) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal((await t.request({ method: 'GET', url: `/files/${id}` })).statusCode, 403);
    });
  });

  describe(`files over tus into s3 storage (${clientLabel(client)})`, () => {
    let s3: TestS3;
    let t: TestApp;
    before(async () => {
      s3 = await TestS3.start();
      t = await startTestApp(client, { env: { STORAGE_LOCATIONS: 'cloud', ...s3.env('cloud'), TUS_ENABLED: 'true' } });
    });
    after(async () => {
      await t?.close();
      await s3?.close();
    });

    it('the completed file is stored in the bucket (parts waited locally) and served by /assets', async () => {
      const content = Buffer.from('resumable text into a bucket\n'.repeat(50));
      const created = await t.request({
        method: 'POST',
        url: '/files/tus',
        headers: { ...TUS, 'upload-length': String(content.length), 'upload-metadata': `filename ${b64('a.txt')}` },
      });
      assert.equal(created.statusCode, 201, created.body);
      const url = new URL(String(created.headers.location), 'http://localhost').pathname;
      const id = url.split('/').pop()!;
      for (const [offset, end] of [
        [0, 700],
        [700, content.length],
      ] as const) {
        const res = await t.request({
          method: 'PATCH',
          url,
          headers: { ...TUS, 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' },
          payload: content.subarray(offset, end),
        });
        assert.equal(res.statusCode, 204, res.body);
      }
      const row = json(await t.request({ method: 'GET', url: `/files/${id}` })).data;
      assert.equal(row.storage, 'cloud');
      assert.equal(Number(row.filesize), content.length);
      assert.equal(row.tus_id, null);
      const asset = await t.request({ method: 'GET', url: `/assets/${id}` });
      assert.equal(asset.statusCode, 200);
      assert.deepEqual(asset.rawPayload, content);
    });
  });

  describe(`files over tus, TUS_ENABLED off (${clientLabel(client)})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(client);
    });
    after(async () => {
      await t?.close();
    });

    it('POST /files/tus answers 404', async () => {
      const res = await t.request({
        method: 'POST',
        url: '/files/tus',
        headers: { ...TUS, 'upload-length': '10' },
      });
      assert.equal(res.statusCode, 404, res.body);
    });
  });
}
