/**
 * Files as the rest of the API sees them: an image field (uuid with the `file` special) is a many-to-one to
 * service_files, read and written nested; /graphql/system serves files and folders; the OpenAPI document describes
 * /files, /folders, /files/import and /assets.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { multipartBody } from '../helpers/multipart.js';

for (const client of testClients()) {
  describe(`files in relations, GraphQL and OpenAPI (${clientLabel(client)})`, () => {
    let t: TestApp;
    let root: string;
    let fileId: string;
    before(async () => {
      root = mkdtempSync(path.join(tmpdir(), 'strata-files-rel-'));
      t = await startTestApp(client, { env: { STORAGE_LOCAL_ROOT: root } });
      const res = await t.request({
        method: 'POST',
        url: '/files',
        ...multipartBody([
          { name: 'title', value: 'Cover' },
          { name: 'file', filename: 'cover.txt', type: 'text/plain', content: 'cover' },
        ]),
      });
      fileId = json(res).data.id;
    });
    after(async () => {
      await t?.close();
      rmSync(root, { recursive: true, force: true });
    });

    it('a uuid field with the file special is a many-to-one to service_files, read and written nested', async () => {
      const field = await t.request({
        method: 'POST',
        url: '/fields/articles',
        payload: { field: 'cover', type: 'uuid', meta: { special: ['file'], interface: 'file-image' } },
      });
      assert.equal(field.statusCode, 200, field.body);
      const set = await t.request({ method: 'PATCH', url: '/items/articles/1', payload: { cover: fileId } });
      assert.equal(set.statusCode, 200, set.body);
      const read = await t.request({ method: 'GET', url: '/items/articles/1?fields=id,cover.title,cover.type' });
      assert.deepEqual(json(read).data, { id: 1, cover: { title: 'Cover', type: 'text/plain' } });
      const nested = await t.request({
        method: 'POST',
        url: '/items/articles?fields=title,cover.title,cover.storage',
        payload: {
          title: 'With a new file row',
          cover: { storage: 'local', filename_download: 'later.jpg', title: 'Later' },
        },
      });
      assert.equal(nested.statusCode, 200, nested.body);
      assert.deepEqual(json(nested).data.cover, { title: 'Later', storage: 'local' });
      const filtered = await t.request({
        method: 'GET',
        url: '/items/articles?filter[cover][title][_eq]=Cover&fields=id',
      });
      assert.deepEqual(json(filtered).data, [{ id: 1 }]);
    });

    it('a files field (m2m through a junction) lists files and links them nested', async () => {
      const junction = await t.request({
        method: 'POST',
        url: '/collections',
        payload: {
          collection: 'articles_files',
          schema: {},
          meta: { hidden: true },
          fields: [
            { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
            { field: 'articles_id', type: 'integer' },
            { field: 'service_files_id', type: 'uuid' },
          ],
        },
      });
      assert.equal(junction.statusCode, 200, junction.body);
      const steps = [
        {
          url: '/fields/articles',
          payload: { field: 'attachments', type: 'alias', meta: { special: ['files'], interface: 'files' } },
        },
        {
          url: '/relations',
          payload: {
            collection: 'articles_files',
            field: 'service_files_id',
            related_collection: 'service_files',
            meta: { junction_field: 'articles_id' },
          },
        },
        {
          url: '/relations',
          payload: {
            collection: 'articles_files',
            field: 'articles_id',
            related_collection: 'articles',
            meta: { one_field: 'attachments', junction_field: 'service_files_id' },
          },
        },
      ];
      for (const step of steps) {
        const res = await t.request({ method: 'POST', ...step });
        assert.equal(res.statusCode, 200, res.body);
      }
      const linked = await t.request({
        method: 'PATCH',
        url: '/items/articles/2?fields=attachments.service_files_id.title',
        payload: { attachments: [{ service_files_id: fileId }] },
      });
      assert.equal(linked.statusCode, 200, linked.body);
      assert.deepEqual(json(linked).data, { attachments: [{ service_files_id: { title: 'Cover' } }] });
    });

    it('/graphql/system serves files and folders', async () => {
      await t.request({ method: 'POST', url: '/folders', payload: { name: 'Pictures' } });
      const res = await t.request({
        method: 'POST',
        url: '/graphql/system',
        payload: { query: `{ files(filter: {title: {_eq: "Cover"}}) { id title filesize } folders { name } }` },
      });
      assert.equal(res.statusCode, 200, res.body);
      const data = json(res).data;
      assert.equal(data.files[0].id, fileId);
      assert.equal(data.files[0].title, 'Cover');
      assert.deepEqual(data.folders, [{ name: 'Pictures' }]);
      const byId = await t.request({
        method: 'POST',
        url: '/graphql/system',
        payload: { query: `{ files_by_id(id: "${fileId}") { filename_download } }` },
      });
      assert.deepEqual(json(byId).data, { files_by_id: { filename_download: 'cover.txt' } });
    });

    it('delete_files_item removes the bytes with the row', async () => {
      const res = await t.request({
        method: 'POST',
        url: '/files',
        ...multipartBody([{ name: 'file', filename: 'gone.txt', type: 'text/plain', content: 'gone' }]),
      });
      const file = json(res).data;
      assert.ok(readdirSync(root).includes(file.filename_disk));
      const del = await t.request({
        method: 'POST',
        url: '/graphql/system',
        payload: { query: `mutation { delete_files_item(id: "${file.id}") { id } }` },
      });
      assert.deepEqual(json(del).data, { delete_files_item: { id: file.id } });
      assert.ok(!readdirSync(root).includes(file.filename_disk));
    });

    it('the OpenAPI document describes files, folders, imports and assets', async () => {
      const doc = json(await t.request({ method: 'GET', url: '/server/specs/oas' }));
      for (const p of ['/files', '/files/{id}', '/folders', '/folders/{id}', '/files/import', '/assets/{pk}'])
        assert.ok(doc.paths[p], `${p} is described`);
      assert.ok(doc.paths['/files'].post.requestBody.content['multipart/form-data']);
    });
  });
}
