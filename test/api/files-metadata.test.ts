/**
 * Upload metadata beyond EXIF (an ICC profile's description, IPTC texts, and the title, description and tags an upload
 * takes from IPTC when it gives none), and a file row deleted over /websocket taking its bytes and variants with it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { ADMIN, json, listenOnLoopback, startTestApp, type TestApp } from '../helpers/test-app.js';
import { multipartBody, type FormPart } from '../helpers/multipart.js';
import { withIptc } from '../helpers/media.js';
import { openWs } from '../helpers/ws-client.js';

const IPTC: [number, string][] = [
  [0x69, 'Harbour at dawn'],
  [0x78, 'Boats in the harbour'],
  [0x19, 'harbour'],
  [0x19, 'boats'],
  [0x50, 'A. Photographer'],
  [0x74, '© Strata tests'],
];

for (const client of testClients()) {
  describe(`files metadata and deletes (${clientLabel(client)})`, () => {
    let t: TestApp;
    let root: string;
    let url: string;
    let photo: Buffer;
    before(async () => {
      root = mkdtempSync(path.join(tmpdir(), 'strata-files-meta-'));
      const jpeg = await sharp({ create: { width: 32, height: 24, channels: 3, background: '#3366cc' } })
        .jpeg()
        .withIccProfile('srgb')
        .toBuffer();
      photo = withIptc(jpeg, IPTC);
      t = await startTestApp(client, {
        env: { STORAGE_LOCAL_ROOT: root, WEBSOCKETS_ENABLED: 'true', WEBSOCKETS_HEARTBEAT_ENABLED: 'false' },
      });
      url = await listenOnLoopback(t);
    });
    after(async () => {
      await t?.close();
      rmSync(root, { recursive: true, force: true });
    });

    const stored = () => readdirSync(root).filter((name) => !name.startsWith('.'));
    /** The variants kept of a file (the local driver keeps them in `.variants/<id>/`). */
    const variants = (id: string): string[] => {
      try {
        return readdirSync(path.join(root, '.variants', id));
      } catch {
        return [];
      }
    };
    const upload = (parts: FormPart[]) => t.request({ method: 'POST', url: '/files', ...multipartBody(parts) });

    it('keeps the ICC profile and IPTC texts; title, description and tags come from IPTC when not given', async () => {
      const res = await upload([{ name: 'file', filename: 'harbour.jpg', type: 'image/jpeg', content: photo }]);
      assert.equal(res.statusCode, 200, res.body);
      const file = json(res).data;
      assert.equal(file.width, 32);
      assert.equal(file.metadata.icc.colorSpace, 'RGB');
      assert.match(file.metadata.icc.description, /sRGB/i);
      assert.deepEqual(file.metadata.iptc, {
        headline: 'Harbour at dawn',
        caption: 'Boats in the harbour',
        keywords: ['harbour', 'boats'],
        byline: 'A. Photographer',
        copyright: '© Strata tests',
      });
      assert.equal(file.title, 'Harbour at dawn');
      assert.equal(file.description, 'Boats in the harbour');
      assert.deepEqual(file.tags, ['harbour', 'boats']);
    });

    it('what the upload gives wins over IPTC', async () => {
      const res = await upload([
        { name: 'title', value: 'My title' },
        { name: 'description', value: 'My description' },
        { name: 'tags', value: '["mine"]' },
        { name: 'file', filename: 'harbour.jpg', type: 'image/jpeg', content: photo },
      ]);
      assert.equal(res.statusCode, 200, res.body);
      const file = json(res).data;
      assert.equal(file.title, 'My title');
      assert.equal(file.description, 'My description');
      assert.deepEqual(file.tags, ['mine']);
      assert.equal(file.metadata.iptc.headline, 'Harbour at dawn');
    });

    it('a file deleted over /websocket loses its bytes and variants', async () => {
      const res = await upload([{ name: 'file', filename: 'gone.jpg', type: 'image/jpeg', content: photo }]);
      const id = json(res).data.id;
      const variant = await t.request({ method: 'GET', url: `/assets/${id}?width=8&format=png` });
      assert.equal(variant.statusCode, 200);
      assert.equal(stored().filter((name) => name.startsWith(id)).length, 1);
      assert.equal(variants(id).length, 1);
      const ws = await openWs(url);
      try {
        ws.send({ type: 'auth', access_token: ADMIN.token });
        assert.equal((await ws.next()).status, 'ok');
        ws.send({ type: 'items', action: 'delete', collection: 'service_files', ids: [id], uid: 'd' });
        const answer = await ws.next();
        assert.equal(answer.type, 'items', JSON.stringify(answer));
        assert.deepEqual(answer.data, [id]);
      } finally {
        ws.close();
      }
      assert.deepEqual([...stored().filter((name) => name.startsWith(id)), ...variants(id)], []);
      const gone = await t.request({ method: 'GET', url: `/files/${id}` });
      assert.equal(gone.statusCode, 403);
    });
  });
}
