/**
 * Directus 11 compatibility of reads and payloads, on every database: an item's own permissions
 * (`/permissions/me/{collection}/{key}`), malformed uuids in filters, payload keys that are no field.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { queryBuilder } from '../../src/db/connection.js';
import { createPolicy, createUserWithPolicies } from '../helpers/access-fixture.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientLabel, testClients } from '../helpers/test-db.js';

for (const client of testClients()) {
  describe(`Directus reads and payloads (${clientLabel(client)})`, () => {
    let t: TestApp;
    let editor: { id: string; token: string };
    const get = (url: string, token?: string | null) => t.request({ method: 'GET', url, token });

    before(async () => {
      t = await startTestApp(client, { fixture: true });
      const policy = await createPolicy(t, {
        permissions: [
          { collection: 'articles', action: 'read' },
          { collection: 'articles', action: 'update', permissions: { status: { _eq: 'published' } } },
          { collection: 'articles', action: 'delete' },
          { collection: 'authors', action: 'create', fields: 'name,bio' },
        ],
      });
      editor = await createUserWithPolicies(t, [policy]);
      // `uid` is a uuid column on PostgreSQL, char(36) elsewhere: the uuid flag makes it a uuid field everywhere.
      await queryBuilder(t.context.db)('service_fields').insert({
        collection: 'articles',
        field: 'uid',
        special: 'uuid',
      });
      await t.reloadSchema();
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

    it('answers GET /permissions/me/{collection}/{key} on system collections with the caller’s rules there', async () => {
      const none = { update: { access: false }, delete: { access: false }, share: { access: false } };
      // App access: Directus's minimal permissions let a user update its own profile, and no other user.
      const appPolicy = await createPolicy(t, { app_access: true, permissions: [] });
      const appUser = await createUserWithPolicies(t, [appPolicy]);
      assert.deepEqual(json(await get(`/permissions/me/service_users/${appUser.id}`, appUser.token)).data, {
        update: { access: true },
        delete: { access: false },
        share: { access: false },
      });
      assert.deepEqual(json(await get(`/permissions/me/service_users/${editor.id}`, appUser.token)).data, none);
      // Without app access and without a rule on users: nothing, even on itself.
      assert.deepEqual(json(await get(`/permissions/me/service_users/${editor.id}`, editor.token)).data, none);
      // A policy's rules on a system collection count as on any other (roles: update all, delete those named "Keep").
      const rolesPolicy = await createPolicy(t, {
        permissions: [
          { collection: 'service_roles', action: 'read' },
          { collection: 'service_roles', action: 'update' },
          { collection: 'service_roles', action: 'delete', permissions: { name: { _eq: 'Keep' } } },
        ],
      });
      const manager = await createUserWithPolicies(t, [rolesPolicy]);
      assert.deepEqual(json(await get(`/permissions/me/service_roles/${manager.role}`, manager.token)).data, {
        update: { access: true },
        delete: { access: false },
        share: { access: false },
      });
      assert.deepEqual(json(await get(`/permissions/me/service_users/${manager.id}`, manager.token)).data, none);
    });

    it('matches nothing with a malformed uuid in a filter, instead of an error', async () => {
      const ids = async (filter: string) => {
        const response = await get(`/items/articles?fields=id&sort=id&${filter}`);
        assert.equal(response.statusCode, 200, response.body);
        return json(response).data.map((row: { id: number }) => row.id);
      };
      assert.deepEqual(await ids('filter[uid][_eq]=not-a-uuid'), []);
      assert.deepEqual(await ids('filter[uid][_in]=not-a-uuid,c9f0f895-fb98-4b91-8f6e-2a4f0a7e1b2c'), [2]);
      assert.deepEqual(await ids('filter[uid][_in]=not-a-uuid'), []);
      // Unequal to every value: the rows that have one (article 3 has none).
      assert.deepEqual(await ids('filter[uid][_neq]=not-a-uuid'), [1, 2, 4, 5, 6]);
      assert.deepEqual(await ids('filter[uid][_nin]=not-a-uuid'), [1, 2, 4, 5, 6]);
      assert.deepEqual(await ids('filter[uid][_eq]=45C48CCE-2E2D-4FBD-A8F1-3C4D5E6F7A8B'), [4]);
    });

    it('drops payload keys that are no field for admins, and for rules granting every field', async () => {
      const send = (method: 'POST' | 'PATCH', url: string, body: unknown, token?: string) =>
        t.request({ method, url, payload: body as object, token });
      const created = await send('POST', '/items/authors', { name: 'Extra', nickname: 'x', bio: 'b' });
      assert.equal(created.statusCode, 200, created.body);
      assert.deepEqual(
        [json(created).data.name, json(created).data.bio, 'nickname' in json(created).data],
        ['Extra', 'b', false],
      );
      const batch = await send('POST', '/items/authors', [{ name: 'A', x: 1 }, { name: 'B' }]);
      assert.equal(batch.statusCode, 200, batch.body);
      const updated = await send('PATCH', '/items/articles/1', { title: 'Renamed', headline: 'x' });
      assert.equal(updated.statusCode, 200, updated.body);
      assert.equal(json(updated).data.title, 'Renamed');
      // The editor's update rule grants `*`: dropped too. Its create rule on authors lists its fields: refused.
      const own = await send('PATCH', '/items/articles/2', { title: 'Edited', headline: 'x' }, editor.token);
      assert.equal(own.statusCode, 200, own.body);
      const listed = await send('POST', '/items/authors', { name: 'Listed', nickname: 'x' }, editor.token);
      assert.equal(listed.statusCode, 403, listed.body);
      assert.match(json(listed).errors[0].extensions.reason, /field "nickname"/);
    });
  });
}
