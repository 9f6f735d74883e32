/**
 * The s3 storage driver against a real S3-compatible server (s3rver in a process of its own): uploads (a single
 * PUT and a multipart upload), assets with ranges, variants kept in the bucket, replacement and deletion of the
 * objects, a location chosen per upload, a refused upload leaving no object, and the server gone (503, no row).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import sharp from 'sharp';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { multipartBody, type FormPart } from '../helpers/multipart.js';
import { TestS3 } from '../helpers/s3-server.js';
import { wav } from '../helpers/media.js';

for (const client of testClients()) {
  describe(`files on s3 storage (${clientLabel(client)})`, () => {
    let s3: TestS3;
    let t: TestApp;
    let bucket: S3Client;
    let local: string;
    before(async () => {
      s3 = await TestS3.start();
      local = mkdtempSync(path.join(tmpdir(), 'strata-files-local-'));
      bucket = new S3Client({
        endpoint: s3.endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId: s3.key, secretAccessKey: s3.secret },
      });
      t = await startTestApp(client, {
        env: {
          STORAGE_LOCATIONS: 'cloud,local',
          ...s3.env('cloud'),
          STORAGE_LOCAL_ROOT: local,
          FILES_MAX_UPLOAD_SIZE: '8mb',
        },
      });
    });
    after(async () => {
      await t?.close();
      bucket?.destroy();
      await s3?.close();
      rmSync(local, { recursive: true, force: true });
    });

    const objects = async () =>
      ((await bucket.send(new ListObjectsV2Command({ Bucket: s3.bucket }))).Contents ?? []).map((o) => o.Key!);
    const upload = (parts: FormPart[], url = '/files', method: 'POST' | 'PATCH' = 'POST') =>
      t.request({ method, url, ...multipartBody(parts) });

    it('uploads to the first location, serves it with ranges and keeps variants in the bucket', async () => {
      const png = await sharp({ create: { width: 120, height: 80, channels: 3, background: '#336699' } })
        .png()
        .toBuffer();
      const res = await upload([{ name: 'file', filename: 'pic.png', type: 'image/png', content: png }]);
      assert.equal(res.statusCode, 200, res.body);
      const file = json(res).data;
      assert.equal(file.storage, 'cloud');
      assert.deepEqual([file.width, file.height], [120, 80]);
      assert.ok((await objects()).includes(file.filename_disk));
      const whole = await t.request({ method: 'GET', url: `/assets/${file.id}` });
      assert.deepEqual(whole.rawPayload, png);
      const part = await t.request({ method: 'GET', url: `/assets/${file.id}`, headers: { range: 'bytes=1-4' } });
      assert.equal(part.statusCode, 206);
      assert.deepEqual(part.rawPayload, png.subarray(1, 5));
      const small = await t.request({ method: 'GET', url: `/assets/${file.id}?width=30&format=webp` });
      assert.equal((await sharp(small.rawPayload).metadata()).width, 30);
      assert.equal((await objects()).filter((k) => k.startsWith(`${file.id}__`)).length, 1);

      const replaced = await upload(
        [{ name: 'file', filename: 'text.txt', type: 'text/plain', content: 'now text' }],
        `/files/${file.id}`,
        'PATCH',
      );
      assert.equal(replaced.statusCode, 200, replaced.body);
      const keys = await objects();
      assert.ok(!keys.includes(file.filename_disk));
      assert.ok(!keys.some((k) => k.startsWith(`${file.id}__`)));
      assert.equal((await t.request({ method: 'GET', url: `/assets/${file.id}` })).body, 'now text');
      assert.equal((await t.request({ method: 'DELETE', url: `/files/${file.id}` })).statusCode, 204);
      assert.ok(!(await objects()).some((k) => k.startsWith(file.id)));
    });

    it('a file of several parts streams as a multipart upload; one over the limit leaves no object', async () => {
      const big = Buffer.alloc(6 * 1024 * 1024, 1);
      const res = await upload([{ name: 'file', filename: 'big.bin', content: big }]);
      assert.equal(res.statusCode, 200, res.body);
      const file = json(res).data;
      assert.equal(Number(file.filesize), big.length);
      const back = await t.request({ method: 'GET', url: `/assets/${file.id}` });
      assert.equal(back.rawPayload.length, big.length);
      const before = await objects();
      const over = await upload([{ name: 'file', filename: 'over.bin', content: Buffer.alloc(9 * 1024 * 1024, 2) }]);
      assert.equal(over.statusCode, 413, over.body);
      assert.deepEqual((await objects()).sort(), before.sort());
    });

    it('the duration of audio is read from the bucket', async () => {
      const res = await upload([{ name: 'file', filename: 'tone.wav', type: 'audio/wav', content: wav(2) }]);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(json(res).data.duration, 2);
    });

    it('an upload may name another location', async () => {
      const res = await upload([
        { name: 'storage', value: 'local' },
        { name: 'file', filename: 'here.txt', type: 'text/plain', content: 'here' },
      ]);
      assert.equal(json(res).data.storage, 'local');
      const bad = await upload([
        { name: 'storage', value: 'nowhere' },
        { name: 'file', filename: 'x.txt', type: 'text/plain', content: 'x' },
      ]);
      assert.equal(bad.statusCode, 400);
    });

    it('the server gone: 503 SERVICE_UNAVAILABLE, no row, the health check says so', async () => {
      const up = json(await t.request({ method: 'GET', url: '/server/health' }));
      assert.equal(up.checks['storage:cloud:responseTime'][0].status, 'ok');
      const count = async () => json(await t.request({ method: 'GET', url: '/files?aggregate[count]=*' })).data[0];
      const rows = await count();
      await s3.stop();
      try {
        const res = await upload([{ name: 'file', filename: 'lost.txt', type: 'text/plain', content: 'lost' }]);
        assert.equal(res.statusCode, 503, res.body);
        assert.equal(errorCode(res), 'SERVICE_UNAVAILABLE');
        assert.deepEqual(await count(), rows);
        const health = json(await t.request({ method: 'GET', url: '/server/health' }));
        assert.equal(health.checks['storage:cloud:responseTime'][0].status, 'error');
        assert.equal(health.checks['storage:local:responseTime'][0].status, 'ok');
      } finally {
        await s3.resume();
      }
    });
  });
}
