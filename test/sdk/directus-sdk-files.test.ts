/**
 * The real @directus/sdk with files through a listening Strata: uploadFiles (FormData over fetch), readFiles,
 * updateFile, readAssetArrayBuffer with a transform, folders, deleteFile.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  createDirectus,
  createFolder,
  deleteFile,
  readAssetArrayBuffer,
  readFile,
  readFiles,
  rest,
  staticToken,
  updateFile,
  uploadFiles,
} from '@directus/sdk';
import sharp from 'sharp';
import { ADMIN, listenOnLoopback, startTestApp, type TestApp } from '../helpers/test-app.js';

describe('@directus/sdk files (sqlite)', () => {
  let t: TestApp;
  let root: string;
  let client: ReturnType<typeof makeClient>;
  const makeClient = (url: string) => createDirectus(url).with(staticToken(ADMIN.token)).with(rest());
  before(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'strata-sdk-files-'));
    t = await startTestApp('sqlite3', { env: { STORAGE_LOCAL_ROOT: root } });
    client = makeClient(await listenOnLoopback(t));
  });
  after(async () => {
    await t?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('uploads, reads, updates, transforms and deletes files', async () => {
    const folder = await client.request(createFolder({ name: 'Uploads' }));
    const png = await sharp({ create: { width: 64, height: 32, channels: 3, background: '#884422' } })
      .png()
      .toBuffer();
    const form = new FormData();
    form.append('title', 'From the SDK');
    form.append('folder', String(folder.id));
    form.append('file', new Blob([png], { type: 'image/png' }), 'sdk.png');
    const file = (await client.request(uploadFiles(form))) as Record<string, unknown>;
    assert.equal(file.title, 'From the SDK');
    assert.equal(file.folder, folder.id);
    assert.deepEqual([file.width, file.height, file.type], [64, 32, 'image/png']);
    const listed = await client.request(readFiles({ fields: ['id', 'filename_download'] }));
    assert.deepEqual(listed, [{ id: file.id, filename_download: 'sdk.png' }]);
    await client.request(updateFile(String(file.id), { description: 'edited' }));
    assert.equal((await client.request(readFile(String(file.id)))).description, 'edited');
    const small = await client.request(readAssetArrayBuffer(String(file.id), { width: 16, format: 'webp' }));
    const meta = await sharp(Buffer.from(small)).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['webp', 16, 8]);
    await client.request(deleteFile(String(file.id)));
    assert.deepEqual(await client.request(readFiles()), []);
  });
});
