/**
 * /files and /folders: multipart uploads streamed to a local storage folder, JSON rows without content, replacement
 * and deletion of the bytes, the limits (FILES_MAX_UPLOAD_SIZE from Content-Length and mid-stream,
 * FILES_MIME_TYPE_ALLOW_LIST), hostile names and types, permissions, and a failing storage or row leaving neither
 * bytes without a row nor a row without bytes.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { multipartBody, type FormPart } from '../helpers/multipart.js';
import { wav } from '../helpers/media.js';
import { createPolicy, createUserWithPolicies } from '../helpers/access-fixture.js';

export async function pngOf(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 30, b: 30 } } })
    .png()
    .toBuffer();
}

for (const client of testClients()) {
  describe(`files (${clientLabel(client)})`, () => {
    let t: TestApp;
    let root: string;
    let png: Buffer;
    before(async () => {
      root = mkdtempSync(path.join(tmpdir(), 'strata-files-'));
      png = await pngOf(40, 30);
      t = await startTestApp(client, {
        env: { STORAGE_LOCAL_ROOT: root, FILES_MAX_UPLOAD_SIZE: '64kb' },
      });
    });
    after(async () => {
      await t?.close();
      rmSync(root, { recursive: true, force: true });
    });

    const stored = () => readdirSync(root).filter((name) => !name.startsWith('.'));
    const upload = (parts: FormPart[], token?: string | null, url = '/files', method: 'POST' | 'PATCH' = 'POST') =>
      t.request({ method, url, ...multipartBody(parts), token });
    const fileRows = async () =>
      json(await t.request({ method: 'GET', url: '/files?fields=id&limit=-1' })).data.map((r: { id: string }) => r.id);

    it('a multipart upload stores the bytes and answers the row, with the measured fields', async () => {
      const res = await upload([
        { name: 'title', value: 'A red square' },
        { name: 'tags', value: '["red","square"]' },
        { name: 'file', filename: 'red-square.png', type: 'image/png', content: png },
      ]);
      assert.equal(res.statusCode, 200, res.body);
      const file = json(res).data;
      assert.equal(file.title, 'A red square');
      assert.deepEqual(file.tags, ['red', 'square']);
      assert.equal(file.storage, 'local');
      assert.equal(file.filename_download, 'red-square.png');
      assert.equal(file.filename_disk, `${file.id}.png`);
      assert.equal(file.type, 'image/png');
      assert.equal(Number(file.filesize), png.length);
      assert.equal(file.width, 40);
      assert.equal(file.height, 30);
      assert.equal(file.metadata.format, 'png');
      assert.ok(file.uploaded_on);
      assert.ok(file.uploaded_by);
      assert.deepEqual(readFileSync(path.join(root, file.filename_disk)), png);
      const read = json(await t.request({ method: 'GET', url: `/files/${file.id}?fields=title,folder` })).data;
      assert.deepEqual(read, { title: 'A red square', folder: null });
    });

    it('EXIF is kept as metadata (ifd0, exif); a rotated photo reports its upright dimensions', async () => {
      const jpeg = await sharp({ create: { width: 60, height: 20, channels: 3, background: '#00aa00' } })
        .jpeg()
        .withMetadata({ orientation: 6 })
        .withExif({ IFD0: { Copyright: 'Strata tests', ImageDescription: 'A green strip' } })
        .toBuffer();
      const res = await upload([{ name: 'file', filename: 'photo.jpg', type: 'image/jpeg', content: jpeg }]);
      assert.equal(res.statusCode, 200, res.body);
      const file = json(res).data;
      assert.equal(file.type, 'image/jpeg');
      assert.deepEqual([file.width, file.height], [20, 60]);
      assert.equal(file.metadata.ifd0.Copyright, 'Strata tests');
      assert.equal(file.metadata.ifd0.ImageDescription, 'A green strip');
      assert.equal(file.metadata.orientation, 6);
    });

    it('the health check probes every storage location (for admins)', async () => {
      const health = json(await t.request({ method: 'GET', url: '/server/health' }));
      assert.equal(health.status, 'ok');
      assert.equal(health.checks['storage:local:responseTime'][0].status, 'ok');
      assert.deepEqual(
        readdirSync(root).filter((name) => name.startsWith('health-')),
        [],
      );
    });

    it('audio and video get their duration (seconds)', async () => {
      const res = await upload([
        { name: 'file', filename: 'tone.wav', type: 'application/octet-stream', content: wav(3) },
      ]);
      assert.equal(res.statusCode, 200, res.body);
      const file = json(res).data;
      assert.match(file.type, /^audio\//);
      assert.equal(file.duration, 3);
    });

    it('several files in one request, each with the fields sent before it; a title from the name', async () => {
      const res = await upload([
        { name: 'title', value: '[First]' },
        { name: 'file', filename: 'one.txt', type: 'text/plain', content: 'one' },
        { name: 'file', filename: 'second_file-name.txt', type: 'text/plain', content: 'two' },
      ]);
      assert.equal(res.statusCode, 200, res.body);
      const files = json(res).data;
      assert.equal(files.length, 2);
      const titles = files.map((f: { title: string }) => f.title).sort();
      // A text field keeps text that looks like JSON; JSON fields (tags) read it as JSON.
      assert.deepEqual(titles, ['Second File Name', '[First]']);
    });

    it('JSON POST /files creates a row without content; folders nest files', async () => {
      const folder = json(await t.request({ method: 'POST', url: '/folders', payload: { name: 'Docs' } })).data;
      assert.ok(folder.id);
      const res = await t.request({
        method: 'POST',
        url: '/files?fields=*,folder.name',
        payload: { storage: 'local', filename_download: 'later.pdf', title: 'Later', folder: folder.id },
      });
      assert.equal(res.statusCode, 200, res.body);
      const file = json(res).data;
      assert.equal(file.filename_disk, null);
      assert.equal(file.folder.name, 'Docs');
      const filtered = json(
        await t.request({ method: 'GET', url: `/files?filter[folder][name][_eq]=Docs&fields=title` }),
      ).data;
      assert.deepEqual(filtered, [{ title: 'Later' }]);
    });

    it('the type is sniffed from the content; names cannot climb out of the folder; zero bytes are a file', async () => {
      const res = await upload([{ name: 'file', filename: '../../escape/evil.jpg', type: 'image/jpeg', content: png }]);
      assert.equal(res.statusCode, 200, res.body);
      const file = json(res).data;
      assert.equal(file.type, 'image/png');
      assert.equal(file.filename_download, 'evil.jpg');
      assert.equal(file.filename_disk, `${file.id}.jpg`);
      assert.ok(stored().includes(file.filename_disk));
      const fake = json(
        await upload([{ name: 'file', filename: 'fake.png', type: 'image/png', content: 'not a png at all' }]),
      ).data;
      assert.equal(fake.type, 'application/octet-stream');
      const empty = await upload([{ name: 'file', filename: 'empty.txt', type: 'text/plain', content: '' }]);
      assert.equal(empty.statusCode, 200, empty.body);
      assert.equal(Number(json(empty).data.filesize), 0);
    });

    it('FILES_MAX_UPLOAD_SIZE: refused mid-stream, with nothing kept', async () => {
      const rows = (await fileRows()).length;
      const files = stored().length;
      const big = Buffer.alloc(70 * 1024, 7);
      const res = await upload([{ name: 'file', filename: 'big.bin', content: big }]);
      assert.equal(res.statusCode, 413, res.body);
      assert.equal(errorCode(res), 'CONTENT_TOO_LARGE');
      assert.equal((await fileRows()).length, rows);
      assert.equal(stored().length, files);
      assert.deepEqual(
        readdirSync(root).filter((n) => n.endsWith('.partial')),
        [],
      );
    });

    it('FILES_MAX_UPLOAD_SIZE: refused from Content-Length before the body is read', async () => {
      const body = multipartBody([{ name: 'file', filename: 'big.bin', content: Buffer.alloc(2 * 1024 * 1024) }]);
      const res = await t.request({ method: 'POST', url: '/files', ...body });
      assert.equal(res.statusCode, 413, res.body);
    });

    it('PATCH with a file replaces the content; DELETE removes the bytes', async () => {
      const first = json(await upload([{ name: 'file', filename: 'v1.txt', type: 'text/plain', content: 'v1' }])).data;
      const res = await upload(
        [
          { name: 'title', value: 'Second version' },
          { name: 'file', filename: 'v2.png', type: 'image/png', content: png },
        ],
        undefined,
        `/files/${first.id}`,
        'PATCH',
      );
      assert.equal(res.statusCode, 200, res.body);
      const second = json(res).data;
      assert.equal(second.id, first.id);
      assert.equal(second.title, 'Second version');
      assert.equal(second.type, 'image/png');
      assert.equal(second.width, 40);
      assert.notEqual(second.filename_disk, first.filename_disk);
      assert.ok(!stored().includes(first.filename_disk));
      assert.deepEqual(readFileSync(path.join(root, second.filename_disk)), png);
      const meta = await t.request({ method: 'PATCH', url: `/files/${first.id}`, payload: { description: 'd' } });
      assert.equal(json(meta).data.description, 'd');
      const del = await t.request({ method: 'DELETE', url: `/files/${first.id}` });
      assert.equal(del.statusCode, 204);
      assert.ok(!stored().includes(second.filename_disk));
      assert.ok(!(await fileRows()).includes(first.id));
    });

    it('a refused row leaves no bytes', async () => {
      const files = stored().length;
      const res = await upload([
        { name: 'title', value: 'x'.repeat(300) },
        { name: 'file', filename: 'long.txt', type: 'text/plain', content: 'hello' },
      ]);
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(stored().length, files);
    });

    it('permissions: no create rule is FORBIDDEN before any byte is stored; a rule with some fields uploads', async () => {
      const none = await createUserWithPolicies(t, [await createPolicy(t, { permissions: [] })]);
      const files = stored().length;
      const res = await upload([{ name: 'file', filename: 'a.txt', type: 'text/plain', content: 'a' }], none.token);
      assert.equal(res.statusCode, 403, res.body);
      assert.equal(stored().length, files);
      const policy = await createPolicy(t, {
        permissions: [
          { collection: 'service_files', action: 'create', fields: 'title,filename_download' },
          { collection: 'service_files', action: 'read', fields: 'id,title,type' },
        ],
      });
      const some = await createUserWithPolicies(t, [policy]);
      const ok = await upload([{ name: 'file', filename: 'b.txt', type: 'text/plain', content: 'b' }], some.token);
      assert.equal(ok.statusCode, 200, ok.body);
      assert.equal(json(ok).data.type, 'text/plain');
      const forged = await upload(
        [
          { name: 'description', value: 'not granted' },
          { name: 'file', filename: 'c.txt', type: 'text/plain', content: 'c' },
        ],
        some.token,
      );
      assert.equal(forged.statusCode, 403, forged.body);
      assert.equal(stored().length, files + 1);
    });
  });
}

describe('files: a failing storage', () => {
  it('answers 503 and writes no row', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'strata-files-broken-'));
    const notAFolder = path.join(dir, 'file');
    writeFileSync(notAFolder, 'in the way');
    const t = await startTestApp('sqlite3', { env: { STORAGE_LOCAL_ROOT: notAFolder } });
    try {
      const res = await t.request({
        method: 'POST',
        url: '/files',
        ...multipartBody([{ name: 'file', filename: 'a.txt', type: 'text/plain', content: 'a' }]),
      });
      assert.equal(res.statusCode, 503, res.body);
      assert.equal(errorCode(res), 'SERVICE_UNAVAILABLE');
      assert.deepEqual(json(await t.request({ method: 'GET', url: '/files' })).data, []);
      const health = await t.request({ method: 'GET', url: '/server/health' });
      assert.equal(health.statusCode, 503);
      assert.equal(json(health).checks['storage:local:responseTime'][0].status, 'error');
      const anonymous = await t.request({ method: 'GET', url: '/server/health', token: null });
      assert.deepEqual(json(anonymous), { status: 'ok' });
    } finally {
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
