/**
 * A cover crop follows the file's focal point as it is now: a variant made before the focal point moved is not
 * served after (the variant's name covers the focal point it was cut around).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { multipartBody } from '../helpers/multipart.js';

/** 320×200, dark, with a white band on its left eighth: a crop shows it or not depending on where it is cut. */
async function banded(): Promise<Buffer> {
  const band = await sharp({ create: { width: 40, height: 200, channels: 3, background: '#ffffff' } })
    .png()
    .toBuffer();
  return sharp({ create: { width: 320, height: 200, channels: 3, background: '#202020' } })
    .composite([{ input: band, left: 0, top: 0 }])
    .png()
    .toBuffer();
}

for (const client of testClients()) {
  describe(`asset variants and the focal point (${clientLabel(client)})`, () => {
    let t: TestApp;
    let root: string;
    before(async () => {
      root = mkdtempSync(path.join(tmpdir(), 'strata-focal-'));
      t = await startTestApp(client, { env: { STORAGE_LOCAL_ROOT: root } });
    });
    after(async () => {
      await t?.close();
      rmSync(root, { recursive: true, force: true });
    });

    const leftPixel = async (url: string) => {
      const res = await t.request({ method: 'GET', url });
      assert.equal(res.statusCode, 200, res.body);
      const { data } = await sharp(res.rawPayload).raw().toBuffer({ resolveWithObject: true });
      return data[0]!;
    };

    it('a cover crop made before the focal point moved is not served after', async () => {
      const upload = await t.request({
        method: 'POST',
        url: '/files',
        ...multipartBody([{ name: 'file', filename: 'banded.png', type: 'image/png', content: await banded() }]),
      });
      assert.equal(upload.statusCode, 200, upload.body);
      const id = json(upload).data.id;
      const thumb = `/assets/${id}?width=100&height=100&fit=cover`;
      // Centred: the band is cut off.
      assert.ok((await leftPixel(thumb)) < 100);
      const patched = await t.request({
        method: 'PATCH',
        url: `/files/${id}`,
        payload: { focal_point_x: 0, focal_point_y: 100 },
      });
      assert.equal(patched.statusCode, 200, patched.body);
      // Around the left edge: the band shows.
      assert.ok((await leftPixel(thumb)) > 200);
    });
  });
}
