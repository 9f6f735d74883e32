/**
 * POST /collections with an array (issue 30): Directus's createMany. Every collection is created and the array of
 * collection objects answered, in the order sent; a refused one (bad input, a name taken, a statement the database
 * refuses) creates none of them, with a coded error. Only admins.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { createPolicy, createUserWithPolicies } from '../helpers/access-fixture.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientLabel, knexFor, testClients } from '../helpers/test-db.js';

type CollectionObject = { collection: string; meta: Record<string, unknown> | null; schema: unknown };

for (const client of testClients()) {
  describe(`POST /collections with an array (${clientLabel(client)})`, () => {
    let t: TestApp;
    let knex: Knex;
    const post = (payload: unknown, token?: string | null) =>
      t.request({ method: 'POST', url: '/collections', payload: payload as object, token });
    const names = async () =>
      json<{ data: CollectionObject[] }>(await t.request({ method: 'GET', url: '/collections' })).data.map(
        (c) => c.collection,
      );

    before(async () => {
      t = await startTestApp(client);
      knex = knexFor(t.testDb);
    });
    after(async () => {
      await knex?.destroy();
      await t?.close();
    });

    it('creates every collection of the array and answers them in order', async () => {
      const response = await post([
        { collection: 'batch_one', meta: { icon: 'box' }, schema: {} },
        {
          collection: 'batch_two',
          schema: {},
          fields: [
            { field: 'id', type: 'uuid', schema: { is_primary_key: true }, meta: { special: ['uuid'] } },
            { field: 'name', type: 'string' },
          ],
        },
        { collection: 'batch_folder', meta: { collapse: 'closed' }, schema: null },
      ]);
      assert.equal(response.statusCode, 200, response.body);
      const data = json<{ data: CollectionObject[] }>(response).data;
      assert.deepEqual(
        data.map((c) => c.collection),
        ['batch_one', 'batch_two', 'batch_folder'],
      );
      assert.equal(data[0]!.meta!.icon, 'box');
      assert.deepEqual(data[1]!.schema, { name: 'batch_two', comment: null });
      assert.equal(data[2]!.schema, null);
      assert.ok(await knex.schema.hasTable('batch_one'));
      assert.ok(await knex.schema.hasTable('batch_two'));
      const created = await t.request({ method: 'POST', url: '/items/batch_two', payload: { name: 'x' } });
      assert.equal(created.statusCode, 200, created.body);
      for (const name of ['batch_one', 'batch_two', 'batch_folder']) assert.ok((await names()).includes(name));
    });

    it('answers an empty array with an empty array', async () => {
      const response = await post([]);
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(json(response).data, []);
    });

    it('creates none when one item is invalid, with a coded error', async () => {
      const cases: [unknown[], RegExp][] = [
        [[{ collection: 'batch_ok_1', schema: {} }, { schema: {} }], /"collection" is required/],
        [[{ collection: 'batch_ok_1', schema: {} }, 'text'], /must be an object/],
        [
          [
            { collection: 'batch_ok_1', schema: {} },
            { collection: 'service_x', schema: {} },
          ],
          /service_/,
        ],
        [
          [
            { collection: 'batch_ok_1', schema: {} },
            { collection: 'batch_one', schema: {} },
          ],
          /already exists/,
        ],
        [
          [
            { collection: 'batch_ok_1', schema: {} },
            { collection: 'Batch_OK_1', schema: {} },
          ],
          /already exists/,
        ],
        [
          [
            { collection: 'batch_ok_1', schema: {} },
            { collection: 'batch_ok_2', schema: {}, fields: [{ field: 'x', type: 'nope' }] },
          ],
          /Type "nope" is unknown/,
        ],
      ];
      for (const [payload, reason] of cases) {
        const response = await post(payload);
        assert.equal(response.statusCode, 400, response.body);
        assert.equal(errorCode(response), 'INVALID_PAYLOAD');
        assert.match(json(response).errors[0].message, reason);
      }
      assert.ok(!(await names()).includes('batch_ok_1'));
      assert.equal(await knex.schema.hasTable('batch_ok_1'), false);
    });

    it('creates none when the database refuses a later one', async () => {
      // A table the database holds but this app has not loaded: the plan passes, the second CREATE TABLE fails.
      await knex.schema.createTable('batch_clash', (table) => table.increments('id'));
      try {
        const response = await post([
          { collection: 'batch_first', schema: {}, meta: { icon: 'box' } },
          { collection: 'batch_clash', schema: {} },
        ]);
        assert.ok(response.statusCode >= 400 && response.statusCode < 500, response.body);
        assert.equal(errorCode(response), 'INVALID_PAYLOAD', response.body);
        assert.match(json(response).errors[0].message, /Collections could not be created/);
        assert.equal(await knex.schema.hasTable('batch_first'), false, 'the first table was undone');
        assert.equal((await knex('service_collections').where({ collection: 'batch_first' })).length, 0);
        assert.ok(!(await names()).includes('batch_first'));
      } finally {
        await knex.schema.dropTableIfExists('batch_clash');
      }
    });

    it('is for admins only', async () => {
      const { token } = await createUserWithPolicies(t, [await createPolicy(t, { app_access: true, permissions: [] })]);
      for (const caller of [token, null]) {
        const response = await post([{ collection: 'batch_forbidden', schema: {} }], caller);
        assert.equal(response.statusCode, 403);
        assert.equal(errorCode(response), 'FORBIDDEN');
      }
      assert.equal(await knex.schema.hasTable('batch_forbidden'), false);
    });
  });
}
