/**
 * The real @directus/sdk managing the schema of a listening Strata: createCollection, createField, updateField,
 * deleteField, createRelation (and their reads), then the new structure used through readItems.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  createCollection,
  createDirectus,
  createField,
  createRelation,
  deleteCollection,
  deleteField,
  deleteRelation,
  readCollection,
  readCollections,
  readField,
  readFieldsByCollection,
  readItems,
  readRelation,
  readRelationByCollection,
  rest,
  staticToken,
  updateCollection,
  updateField,
  updateRelation,
} from '@directus/sdk';
import { clientLabel, knexFor, testClients } from '../helpers/test-db.js';
import { ADMIN, startTestApp, type TestApp, listenOnLoopback } from '../helpers/test-app.js';

for (const client of testClients()) {
  describe(`@directus/sdk schema management against Strata (${clientLabel(client)})`, () => {
    let t: TestApp;
    let url: string;
    before(async () => {
      t = await startTestApp(client, { fixture: false });
      url = await listenOnLoopback(t);
    });
    after(async () => {
      await t?.close();
    });

    // The schema is built at run time, so the client is untyped.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const sdk = () => createDirectus<any>(url).with(staticToken(ADMIN.token)).with(rest());

    it('creates collections, fields and a relation, changes and deletes them', async () => {
      const api = sdk();
      const created = await api.request(
        createCollection({ collection: 'teams', meta: { icon: 'groups' }, schema: {} }),
      );
      assert.equal(created.collection, 'teams');
      await api.request(
        createField('teams', {
          field: 'name',
          type: 'string',
          meta: { interface: 'input', required: true },
          schema: { is_nullable: false, default_value: 'Team' },
        }),
      );
      await api.request(
        createCollection({
          collection: 'players',
          schema: {},
          fields: [
            {
              field: 'id',
              type: 'integer',
              meta: { hidden: true },
              schema: { is_primary_key: true, has_auto_increment: true },
            },
            { field: 'name', type: 'string' },
            { field: 'team', type: 'integer', meta: { special: ['m2o'], interface: 'select-dropdown-m2o' } },
          ],
        }),
      );
      await api.request(
        createField('teams', { field: 'players', type: 'alias', meta: { special: ['o2m'], interface: 'list-o2m' } }),
      );
      const relation = await api.request(
        createRelation({
          collection: 'players',
          field: 'team',
          related_collection: 'teams',
          meta: { one_field: 'players' },
          schema: { on_delete: 'SET NULL' },
        }),
      );
      assert.equal(relation.schema.on_delete, 'SET NULL');

      const knex = knexFor(t.testDb);
      try {
        await knex('teams').insert({ name: 'Reds' });
        await knex('players').insert([
          { name: 'Ann', team: 1 },
          { name: 'Bo', team: 1 },
        ]);
      } finally {
        await knex.destroy();
      }
      const teams = await api.request(readItems('teams', { fields: ['name', { players: ['name'] }] }));
      assert.deepEqual(teams, [{ name: 'Reds', players: [{ name: 'Ann' }, { name: 'Bo' }] }]);

      assert.equal((await api.request(readCollection('teams'))).meta.icon, 'groups');
      assert.ok((await api.request(readCollections())).some((c) => c.collection === 'players'));
      assert.deepEqual(
        (await api.request(readFieldsByCollection('players'))).map((f) => f.field),
        ['id', 'name', 'team'],
      );
      assert.equal((await api.request(readField('teams', 'name'))).schema.default_value, 'Team');
      assert.equal((await api.request(readRelation('players', 'team'))).related_collection, 'teams');
      assert.equal((await api.request(readRelationByCollection('players'))).length, 1);

      const changed = await api.request(
        updateField('players', 'name', { schema: { max_length: 80, is_nullable: false }, meta: { note: 'Full name' } }),
      );
      assert.equal(changed.schema.max_length, 80);
      assert.equal(changed.schema.is_nullable, false);
      assert.equal(changed.meta.note, 'Full name');
      assert.equal((await api.request(updateCollection('players', { meta: { note: 'People' } }))).meta.note, 'People');
      assert.equal(
        (await api.request(updateRelation('players', 'team', { schema: { on_delete: 'CASCADE' } }))).schema.on_delete,
        'CASCADE',
      );

      await assert.rejects(
        api.request(updateField('players', 'name', { type: 'integer' })),
        (error: { errors: { extensions: { code: string; reason: string } }[] }) => {
          assert.equal(error.errors[0]!.extensions.code, 'INVALID_PAYLOAD');
          assert.match(error.errors[0]!.extensions.reason, /can't be changed from string\(80\) to integer: 2 value/);
          return true;
        },
      );

      await api.request(deleteField('players', 'name'));
      assert.deepEqual(await api.request(readItems('players', { sort: ['id'] })), [
        { id: 1, team: 1 },
        { id: 2, team: 1 },
      ]);
      await api.request(deleteRelation('players', 'team'));
      await api.request(deleteCollection('players'));
      await assert.rejects(
        api.request(readCollection('players')),
        (error: { errors: { extensions: { code: string } }[] }) => error.errors[0]!.extensions.code === 'FORBIDDEN',
      );
    });
  });
}
