/**
 * GET /assets/{id}: the original streamed with ranges, validators and caching headers; read permission on the row;
 * SVG and HTML served so they cannot run script; image transforms (parameters, presets, the settings that allow them)
 * made once per variant and kept in storage; decompression bombs and oversized transforms refused.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { multipartBody } from '../helpers/multipart.js';
import { grantPublic } from '../helpers/access-fixture.js';

const image = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 10, g: 120, b: 200 } } });

for (const client of testClients()) {
  describe(`assets (${clientLabel(client)})`, () => {
    let t: TestApp;
    let root: string;
    let png: Buffer;
    let id: string;
    before(async () => {
      root = mkdtempSync(path.join(tmpdir(), 'strata-assets-'));
      png = await image(400, 300).png().toBuffer();
      t = await startTestApp(client, {
        env: { STORAGE_LOCAL_ROOT: root, ASSETS_TRANSFORM_IMAGE_MAX_DIMENSION: '1000', ASSETS_CACHE_TTL: '1h' },
      });
      id = await upload('photo.png', 'image/png', png, 'Photo');
    });
    after(async () => {
      await t?.close();
      rmSync(root, { recursive: true, force: true });
    });

    async function upload(filename: string, type: string, content: Buffer | string, title = 'x'): Promise<string> {
      const res = await t.request({
        method: 'POST',
        url: '/files',
        ...multipartBody([
          { name: 'title', value: title },
          { name: 'file', filename, type, content },
        ]),
      });
      assert.equal(res.statusCode, 200, res.body);
      return json(res).data.id;
    }
    /** The variants kept of a file (the local driver keeps them in `.variants/<id>/`). */
    const variants = (fileId: string): string[] => {
      try {
        return readdirSync(path.join(root, '.variants', fileId));
      } catch {
        return [];
      }
    };
    const asset = (url: string, headers: Record<string, string> = {}, token?: string | null) =>
      t.request({ method: 'GET', url, headers, token });

    it('streams the original with its type, validators, caching and safety headers', async () => {
      const res = await asset(`/assets/${id}`);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.rawPayload, png);
      assert.equal(res.headers['content-type'], 'image/png');
      assert.equal(Number(res.headers['content-length']), png.length);
      assert.equal(res.headers['accept-ranges'], 'bytes');
      assert.ok(res.headers.etag);
      assert.ok(res.headers['last-modified']);
      assert.equal(res.headers['cache-control'], 'private, max-age=3600');
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.match(String(res.headers['content-security-policy']), /sandbox/);
      assert.match(String(res.headers['content-disposition']), /^inline; filename="photo.png"/);
      const download = await asset(`/assets/${id}?download`);
      assert.match(String(download.headers['content-disposition']), /^attachment; filename="photo.png"/);
      const named = await asset(`/assets/${id}/photo.png`);
      assert.equal(named.statusCode, 200);
      const again = await asset(`/assets/${id}`, { 'if-none-match': String(res.headers.etag) });
      assert.equal(again.statusCode, 304);
    });

    it('ranges: 206 with the bytes asked for, suffix ranges, 416 out of bounds', async () => {
      const first = await asset(`/assets/${id}`, { range: 'bytes=0-9' });
      assert.equal(first.statusCode, 206);
      assert.equal(first.headers['content-range'], `bytes 0-9/${png.length}`);
      assert.deepEqual(first.rawPayload, png.subarray(0, 10));
      const last = await asset(`/assets/${id}`, { range: 'bytes=-5' });
      assert.equal(last.statusCode, 206);
      assert.deepEqual(last.rawPayload, png.subarray(png.length - 5));
      const open = await asset(`/assets/${id}`, { range: `bytes=${png.length - 3}-` });
      assert.deepEqual(open.rawPayload, png.subarray(png.length - 3));
      const beyond = await asset(`/assets/${id}`, { range: `bytes=${png.length + 10}-` });
      assert.equal(beyond.statusCode, 416);
      assert.equal(errorCode(beyond), 'RANGE_NOT_SATISFIABLE');
      assert.equal(beyond.headers['content-range'], `bytes */${png.length}`);
    });

    it('needs read permission on the file row', async () => {
      assert.equal((await asset(`/assets/${id}`, {}, null)).statusCode, 403);
      const other = await upload('other.txt', 'text/plain', 'other', 'Hidden');
      await grantPublic(t, [{ collection: 'service_files', action: 'read', permissions: { title: { _eq: 'Photo' } } }]);
      const open = await asset(`/assets/${id}`, {}, null);
      assert.equal(open.statusCode, 200);
      assert.match(String(open.headers['cache-control']), /^public/);
      assert.equal((await asset(`/assets/${other}`, {}, null)).statusCode, 403);
      assert.equal((await asset('/assets/00000000-0000-4000-8000-000000000000')).statusCode, 403);
    });

    it('SVG cannot run script in the API origin; HTML is always an attachment', async () => {
      const svg = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script><rect width="5" height="5"/></svg>';
      const svgId = await upload('x.svg', 'image/svg+xml', svg);
      const res = await asset(`/assets/${svgId}`);
      assert.equal(res.headers['content-type'], 'image/svg+xml');
      assert.match(String(res.headers['content-security-policy']), /default-src 'none'/);
      assert.doesNotMatch(String(res.headers['content-security-policy']), /script-src/);
      const htmlId = await upload('page.html', 'text/html', '<html><script>alert(1)</script></html>');
      const html = await asset(`/assets/${htmlId}`);
      assert.match(String(html.headers['content-disposition']), /^attachment/);
      assert.equal(html.headers['x-content-type-options'], 'nosniff');
    });

    it('transforms: size, fit, format, quality, operations; each variant made once and kept', async () => {
      const res = await asset(`/assets/${id}?width=100&format=webp&quality=80`);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['content-type'], 'image/webp');
      const meta = await sharp(res.rawPayload).metadata();
      assert.equal(meta.format, 'webp');
      assert.equal(meta.width, 100);
      assert.equal(meta.height, 75);
      assert.equal(variants(id).length, 1);
      const again = await asset(`/assets/${id}?width=100&format=webp&quality=80`);
      assert.equal(again.headers.etag, res.headers.etag);
      assert.equal(variants(id).length, 1);
      const cover = await sharp((await asset(`/assets/${id}?width=50&height=50&fit=cover`)).rawPayload).metadata();
      assert.deepEqual([cover.width, cover.height, cover.format], [50, 50, 'png']);
      const inside = await sharp((await asset(`/assets/${id}?width=50&height=50&fit=inside`)).rawPayload).metadata();
      assert.deepEqual([inside.width, inside.height], [50, 38]);
      const kept = await sharp((await asset(`/assets/${id}?width=900&withoutEnlargement=true`)).rawPayload).metadata();
      assert.equal(kept.width, 400);
      const ops = await asset(`/assets/${id}?transforms=${encodeURIComponent('[["blur",2],["flip"]]')}&format=jpg`);
      assert.equal(ops.statusCode, 200, ops.body);
      assert.equal(ops.headers['content-type'], 'image/jpeg');
      const avif = await asset(`/assets/${id}?width=20&format=avif`);
      assert.equal(avif.headers['content-type'], 'image/avif');
      const auto = await asset(`/assets/${id}?width=20&format=auto`, { accept: 'image/webp,*/*' });
      assert.equal(auto.headers['content-type'], 'image/webp');
    });

    it('a cover crop keeps the focal point (the row’s, or the query’s) in view', async () => {
      const halves = await sharp({ create: { width: 400, height: 100, channels: 3, background: '#ff0000' } })
        .composite([{ input: await image(200, 100).png().toBuffer(), left: 200, top: 0 }])
        .png()
        .toBuffer();
      const split = await upload('halves.png', 'image/png', halves);
      const colour = async (query: string) => {
        const res = await asset(`/assets/${split}?${query}`);
        assert.equal(res.statusCode, 200, res.body);
        const { data } = await sharp(res.rawPayload).raw().toBuffer({ resolveWithObject: true });
        return data[0]! > 128 ? 'red' : 'blue';
      };
      assert.equal(await colour('width=50&height=50&focal_point_x=350&focal_point_y=50'), 'blue');
      assert.equal(await colour('width=50&height=50&focal_point_x=40&focal_point_y=50'), 'red');
      await t.request({ method: 'PATCH', url: `/files/${split}`, payload: { focal_point_x: 390, focal_point_y: 50 } });
      assert.equal(await colour('width=60&height=60'), 'blue');
    });

    it('bad and oversized transforms are 400 ILLEGAL_ASSET_TRANSFORMATION', async () => {
      for (const query of [
        'width=abc',
        'fit=stretch',
        'format=bmp',
        'width=5000',
        `transforms=${encodeURIComponent('[["toFile","/tmp/x"]]')}`,
        `transforms=${encodeURIComponent('[["resize",90000]]')}`,
        'transforms=not-json',
      ]) {
        const res = await asset(`/assets/${id}?${query}`);
        assert.equal(res.statusCode, 400, `${query}: ${res.body}`);
        assert.equal(errorCode(res), 'ILLEGAL_ASSET_TRANSFORMATION');
      }
    });

    it('decompression bombs: refused from the declared dimensions, with or without them in the row', async () => {
      const bomb = await image(2500, 2500).png({ compressionLevel: 9 }).toBuffer();
      const bombId = await upload('bomb.png', 'image/png', bomb);
      const row = json(await t.request({ method: 'GET', url: `/files/${bombId}?fields=width,height` })).data;
      assert.deepEqual(row, { width: 2500, height: 2500 });
      const res = await asset(`/assets/${bombId}?width=10`);
      assert.equal(res.statusCode, 400, res.body);
      await t.request({ method: 'PATCH', url: `/files/${bombId}`, payload: { width: null, height: null } });
      const unknown = await asset(`/assets/${bombId}?width=10`);
      assert.equal(unknown.statusCode, 400, unknown.body);
      assert.equal(errorCode(unknown), 'ILLEGAL_ASSET_TRANSFORMATION');
      assert.deepEqual([...variants(bombId), ...readdirSync(root).filter((n) => n.endsWith('.partial'))], []);
      assert.equal((await asset(`/assets/${bombId}`)).statusCode, 200);
    });

    it('presets by key, and storage_asset_transform all / presets / none', async () => {
      const settings = (payload: Record<string, unknown>) => t.request({ method: 'PATCH', url: '/settings', payload });
      const set = await settings({
        storage_asset_presets: [{ key: 'thumb', width: 64, height: 64, fit: 'cover', format: 'webp' }],
      });
      assert.equal(set.statusCode, 200, set.body);
      const thumb = await asset(`/assets/${id}?key=thumb`);
      assert.equal(thumb.statusCode, 200, thumb.body);
      const meta = await sharp(thumb.rawPayload).metadata();
      assert.deepEqual([meta.width, meta.height, meta.format], [64, 64, 'webp']);
      assert.equal(errorCode(await asset(`/assets/${id}?key=nope`)), 'ILLEGAL_ASSET_TRANSFORMATION');
      assert.equal(errorCode(await asset(`/assets/${id}?key=thumb&width=3`)), 'ILLEGAL_ASSET_TRANSFORMATION');
      await settings({ storage_asset_transform: 'presets' });
      assert.equal((await asset(`/assets/${id}?key=thumb`)).statusCode, 200);
      assert.equal((await asset(`/assets/${id}?width=30`)).statusCode, 400);
      await settings({ storage_asset_transform: 'none' });
      assert.equal((await asset(`/assets/${id}?key=thumb`)).statusCode, 400);
      assert.equal((await asset(`/assets/${id}`)).statusCode, 200);
      await settings({ storage_asset_transform: 'all' });
    });

    it('a filename_disk edited to climb out of storage is refused, never read', async () => {
      const victim = await upload('victim.txt', 'text/plain', 'mine');
      for (const name of ['../../../etc/passwd', '/etc/passwd', '.variants', 'a/b']) {
        const edit = await t.request({ method: 'PATCH', url: `/files/${victim}`, payload: { filename_disk: name } });
        assert.equal(edit.statusCode, 200, edit.body);
        const res = await asset(`/assets/${victim}`);
        assert.equal(res.statusCode, 400, `${name}: ${res.body}`);
        assert.equal(errorCode(res), 'INVALID_PAYLOAD');
      }
    });

    it('DELETE removes the original and every variant', async () => {
      const gone = await upload('gone.png', 'image/png', png);
      await asset(`/assets/${gone}?width=10`);
      await asset(`/assets/${gone}?width=20`);
      assert.equal(readdirSync(root).filter((n) => n.startsWith(gone)).length, 1);
      assert.equal(variants(gone).length, 2);
      assert.equal((await t.request({ method: 'DELETE', url: `/files/${gone}` })).statusCode, 204);
      assert.deepEqual(
        readdirSync(root).filter((n) => n.startsWith(gone)),
        [],
      );
      assert.deepEqual(
        readdirSync(path.join(root, '.variants')).filter((n) => n.startsWith(gone)),
        [],
      );
    });
  });
}
