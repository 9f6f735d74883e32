/**
 * Directus compatibility: lenient where Directus is lenient. Keys Strata does not read in a field, collection or
 * relation body are ignored (`schema: {length: 36}`), an admin's unknown keys on a system collection are dropped
 * (`POST /users {name}`), as on user collections (test/api/compat-reads-payloads.test.ts), and `POST /collections`
 * with a schema but no fields creates the automatic `id`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';

for (const client of testClients()) {
  describe(`lenient where Directus is lenient (${clientLabel(client)})`, () => {
    let t: TestApp;
    const send = (method: 'POST' | 'PATCH', url: string, body: unknown, token?: string) =>
      t.request({ method, url, payload: JSON.stringify(body), headers: { 'content-type': 'application/json' }, token });
    const get = (url: string) => t.request({ method: 'GET', url });

    before(async () => {
      t = await startTestApp(client, { fixture: false });
    });
    after(async () => {
      await t?.close();
    });

    it('creates the automatic id for a collection sent without fields or with an empty list', async () => {
      for (const [collection, body] of [
        ['no_fields', {}],
        ['empty_fields', { fields: [] }],
      ] as const) {
        const res = await send('POST', '/collections', { collection, meta: {}, schema: {}, ...body });
        assert.equal(res.statusCode, 200, res.body);
        const id = json(await get(`/fields/${collection}/id`)).data;
        assert.equal(id.schema.is_primary_key, true, collection);
        assert.equal(id.schema.has_auto_increment, true, collection);
        const created = await send('POST', `/items/${collection}`, {});
        assert.equal(created.statusCode, 200, created.body);
        assert.equal(json(created).data.id, 1);
      }
    });

    it('ignores keys it does not read in field, collection and relation bodies', async () => {
      const collection = await send('POST', '/collections', {
        collection: 'lenient',
        meta: { icon: 'box', colour: 'red' },
        schema: { engine: 'whatever' },
        fields: [
          {
            field: 'id',
            type: 'uuid',
            meta: { special: ['uuid'], hidden: true },
            schema: { is_primary_key: true, length: 36 },
          },
        ],
        extra: true,
      });
      assert.equal(collection.statusCode, 200, collection.body);
      assert.equal(json(collection).data.meta.icon, 'box');
      const field = await send('POST', '/fields/lenient', {
        field: 'code',
        type: 'string',
        meta: { shape: 'round', note: 'n' },
        schema: { length: 36, max_length: 40 },
        extra: 1,
      });
      assert.equal(field.statusCode, 200, field.body);
      assert.equal(json(field).data.schema.max_length, 40);
      assert.equal(json(field).data.meta.note, 'n');
      const owner = await send('POST', '/fields/lenient', { field: 'owner', type: 'uuid', schema: { length: 36 } });
      assert.equal(owner.statusCode, 200, owner.body);
      const relation = await send('POST', '/relations', {
        collection: 'lenient',
        field: 'owner',
        related_collection: 'service_users',
        schema: { on_delete: 'SET NULL', match: 'full' },
        meta: { extra: 1 },
      });
      assert.equal(relation.statusCode, 200, relation.body);
      const changed = await send('PATCH', '/fields/lenient/code', { schema: { max_length: 50, length: 50 } });
      assert.equal(changed.statusCode, 200, changed.body);
      assert.equal(json(changed).data.schema.max_length, 50);
    });

    it("drops an admin's unknown keys on system collections, as Directus does", async () => {
      const user = await send('POST', '/users', {
        email: 'named@example.com',
        password: 'secret-password-1',
        name: 'Named',
        first_name: 'Ada',
      });
      assert.equal(user.statusCode, 200, user.body);
      assert.equal(json(user).data.first_name, 'Ada');
      assert.equal(json(user).data.name, undefined);
      const role = await send('POST', '/roles', { name: 'Editors', colour: 'red' });
      assert.equal(role.statusCode, 200, role.body);
      const updated = await send('PATCH', `/users/${json(user).data.id}`, { nickname: 'x', last_name: 'Lovelace' });
      assert.equal(updated.statusCode, 200, updated.body);
      assert.equal(json(updated).data.last_name, 'Lovelace');
    });

    it('drops unknown keys of user collections too (Directus does)', async () => {
      const res = await send('POST', '/items/no_fields', { nope: 1 });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(json(res).data.nope, undefined);
    });
  });
}
