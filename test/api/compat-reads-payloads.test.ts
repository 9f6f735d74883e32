/**
 * Directus 11 compatibility of reads and payloads, on every database: an item's own permissions
 * (`/permissions/me/{collection}/{key}`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPolicy, createUserWithPolicies } from '../helpers/access-fixture.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientLabel, testClients } from '../helpers/test-db.js';

for (const client of testClients()) {
  describe(`Directus reads and payloads (${clientLabel(client)})`, () => {
    let t: TestApp;
    let editor: { token: string };
    const get = (url: string, token?: string | null) => t.request({ method: 'GET', url, token });

    before(async () => {
      t = await startTestApp(client, { fixture: true });
      const policy = await createPolicy(t, {
        permissions: [
          { collection: 'articles', action: 'read' },
          { collection: 'articles', action: 'update', permissions: { status: { _eq: 'published' } } },
          { collection: 'articles', action: 'delete' },
        ],
      });
      editor = await createUserWithPolicies(t, [policy]);
    });
    after(async () => {
      await t?.close();
    });

    it('answers GET /permissions/me/{collection}/{key} with the item’s update, delete and share access', async () => {
      const all = { update: { access: true }, delete: { access: true }, share: { access: true } };
      assert.deepEqual(json(await get('/permissions/me/articles/1')).data, all);
      // Article 1 is published (the update rule holds), 3 is a draft, 999 does not exist.
      assert.deepEqual(json(await get('/permissions/me/articles/1', editor.token)).data, {
        update: { access: true },
        delete: { access: true },
        share: { access: false },
      });
      assert.deepEqual(json(await get('/permissions/me/articles/3', editor.token)).data, {
        update: { access: false },
        delete: { access: true },
        share: { access: false },
      });
      const none = { update: { access: false }, delete: { access: false }, share: { access: false } };
      assert.deepEqual(json(await get('/permissions/me/articles/999', editor.token)).data, none);
      assert.deepEqual(json(await get('/permissions/me/authors/1', editor.token)).data, none);
      assert.deepEqual(json(await get('/permissions/me/nowhere/1', editor.token)).data, none);
      assert.equal(errorCode(await get('/permissions/me/articles/1', null)), 'FORBIDDEN');
    });
  });
}
