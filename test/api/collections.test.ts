/**
 * /collections on every database: create (auto key, with fields and meta, folders), read, change meta, delete with
 * every reference cleaned; the API reflects each change at once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { clientLabel, knexFor, testClients } from '../helpers/test-db.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';

const COLLECTION_META = {
  icon: 'inventory',
  note: 'Things in stock',
  display_template: '{{name}}',
  hidden: false,
  singleton: false,
  translations: [{ language: 'fr-FR', translation: 'Stock', singular: 'article', plural: 'articles' }],
  archive_field: 'state',
  archive_app_filter: true,
  archive_value: 'archived',
  unarchive_value: 'draft',
  sort_field: 'sort',
  accountability: 'all',
  color: '#112233',
  item_duplication_fields: ['name'],
  sort: 3,
  group: null,
  collapse: 'closed',
  preview_url: 'https://example.com/{{id}}',
  versioning: false,
};

for (const client of testClients()) {
  describe(`collections (${clientLabel(client)})`, () => {
    let t: TestApp;
    let knex: Knex;
    before(async () => {
      t = await startTestApp(client, { relations: true });
      knex = knexFor(t.testDb);
    });
    after(async () => {
      await knex?.destroy();
      await t?.close();
    });

    const get = (url: string, token?: string | null) => t.request({ method: 'GET', url, token });
    const post = (url: string, payload: unknown, token?: string | null) =>
      t.request({ method: 'POST', url, payload: payload as object, token });
    const patch = (url: string, payload: unknown) => t.request({ method: 'PATCH', url, payload: payload as object });
    const del = (url: string) => t.request({ method: 'DELETE', url });

    it('creates a collection without fields with an auto-increment id, usable at once', async () => {
      const version = t.context.schema.current.version;
      const res = await post('/collections', { collection: 'notes', schema: {}, meta: { icon: 'note' } });
      assert.equal(res.statusCode, 200, res.body);
      const body = json(res).data;
      assert.deepEqual(Object.keys(body), ['collection', 'meta', 'schema']);
      assert.equal(body.collection, 'notes');
      assert.equal(body.meta.icon, 'note');
      assert.deepEqual(body.schema, { name: 'notes', comment: null });
      assert.ok(t.context.schema.current.version > version, 'the schema overview was rebuilt');
      const id = json(await get('/fields/notes/id')).data;
      assert.equal(id.type, 'integer');
      assert.equal(id.schema.is_primary_key, true);
      assert.equal(id.schema.has_auto_increment, true);
      assert.deepEqual([id.meta.hidden, id.meta.readonly, id.meta.interface], [true, true, 'numeric']);
      await knex('notes').insert({});
      await knex('notes').insert({});
      assert.deepEqual(json(await get('/items/notes?sort=id')).data, [{ id: 1 }, { id: 2 }]);
    });

    it('creates a collection with its fields and every meta option', async () => {
      const res = await post('/collections', {
        collection: 'stock',
        schema: {},
        meta: COLLECTION_META,
        fields: [
          { field: 'id', type: 'uuid', schema: { is_primary_key: true }, meta: { special: ['uuid'], hidden: true } },
          { field: 'name', type: 'string', schema: { is_nullable: false }, meta: { required: true } },
          { field: 'state', type: 'string', schema: { default_value: 'draft' } },
          { field: 'sort', type: 'integer' },
          {
            field: 'divider',
            type: 'alias',
            meta: { special: ['alias', 'no-data'], interface: 'presentation-divider' },
          },
        ],
      });
      assert.equal(res.statusCode, 200, res.body);
      const meta = json(res).data.meta;
      for (const [key, value] of Object.entries(COLLECTION_META)) assert.deepEqual(meta[key], value, key);
      const fields = json(await get('/fields/stock')).data as {
        field: string;
        type: string;
        schema: { is_primary_key: boolean } | null;
      }[];
      assert.deepEqual(
        fields.map((f) => [f.field, f.type]),
        [
          ['id', 'uuid'],
          ['name', 'string'],
          ['state', 'string'],
          ['sort', 'integer'],
          ['divider', 'alias'],
        ],
      );
      assert.equal(fields[0]!.schema!.is_primary_key, true);
      await knex('stock').insert({ id: '8f14e45f-ceea-467f-a0e6-6f5f5e5d9c1a', name: 'Bolt' });
      assert.deepEqual(json(await get('/items/stock')).data, [
        { id: '8f14e45f-ceea-467f-a0e6-6f5f5e5d9c1a', name: 'Bolt', state: 'draft', sort: null },
      ]);
    });

    it('creates folders (no table) and groups collections in them', async () => {
      const folder = await post('/collections', {
        collection: 'library',
        meta: { icon: 'folder', collapse: 'open' },
        schema: null,
      });
      assert.equal(folder.statusCode, 200, folder.body);
      assert.equal(json(folder).data.schema, null);
      assert.equal(json(folder).data.meta.icon, 'folder');
      const bare = await post('/collections', { collection: 'shelf' });
      assert.equal(json(bare).data.schema, null, 'no schema and no fields: a folder');
      assert.equal(json(await patch('/collections/stock', { meta: { group: 'library' } })).data.meta.group, 'library');
      const all = json(await get('/collections')).data as { collection: string; schema: unknown }[];
      assert.ok(all.some((c) => c.collection === 'library' && c.schema === null));
      assert.ok(all.some((c) => c.collection === 'articles' && c.schema !== null));
      assert.equal(errorCode(await get('/items/library')), 'FORBIDDEN');
      const fields = await post('/fields/library', { field: 'x', type: 'string' });
      assert.equal(fields.statusCode, 400);
      assert.match(json(fields).errors[0].extensions.reason, /folder/);
    });

    it('reads collections; unknown ones are 403; only admins', async () => {
      const articles = json(await get('/collections/articles')).data;
      assert.deepEqual(articles, { collection: 'articles', meta: null, schema: { name: 'articles', comment: null } });
      assert.equal((await get('/collections/nope')).statusCode, 403);
      assert.equal((await get('/collections', null)).statusCode, 403);
      assert.equal((await post('/collections', { collection: 'x', schema: {} }, null)).statusCode, 403);
    });

    it('refuses duplicates, service_ names, bad names and bad meta', async () => {
      const cases: [unknown, RegExp][] = [
        [{ collection: 'articles', schema: {} }, /Collection "articles" already exists/],
        [{ collection: 'Articles', schema: {} }, /already exists/],
        [{ collection: 'service_things', schema: {} }, /can't start with "service_"/],
        [{ collection: 'bad name', schema: {} }, /invalid/],
        [{ schema: {} }, /"collection" is required/],
        [{ collection: 'x', schema: {}, meta: { collapse: 'sideways' } }, /"meta.collapse" must be one of/],
        [{ collection: 'x', schema: {}, fields: [{ field: 'a', type: 'nope' }] }, /Type "nope" is unknown/],
        [
          {
            collection: 'x',
            schema: {},
            fields: [
              { field: 'a', type: 'string' },
              { field: 'a', type: 'text' },
            ],
          },
          /given twice/,
        ],
        [{ collection: 'x', schema: null, fields: [{ field: 'a', type: 'string' }] }, /folder/],
      ];
      for (const [payload, reason] of cases) {
        const res = await post('/collections', payload);
        assert.equal(res.statusCode, 400, `${JSON.stringify(payload)}: ${res.body}`);
        assert.equal(errorCode(res), 'INVALID_PAYLOAD');
        assert.match(json(res).errors[0].extensions.reason, reason);
      }
      assert.equal((await get('/collections/x')).statusCode, 403, 'nothing was created');
    });

    it('changes meta only, creating the meta row where there was none', async () => {
      const res = await patch('/collections/authors', {
        meta: { icon: 'person', note: 'People' },
        schema: { comment: 'ignored' },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(json(res).data.meta.icon, 'person');
      const again = json(await patch('/collections/authors', { meta: { note: 'Writers' } })).data.meta;
      assert.deepEqual([again.icon, again.note], ['person', 'Writers']);
      const many = await patch('/collections', [
        { collection: 'authors', meta: { color: '#ff0000' } },
        { collection: 'tags', meta: { hidden: true } },
      ]);
      assert.equal(many.statusCode, 200, many.body);
      assert.deepEqual(
        json(many).data.map((c: { meta: { color: string; hidden: boolean } }) => [c.meta.color, c.meta.hidden]),
        [
          ['#ff0000', false],
          [null, true],
        ],
      );
      assert.equal((await patch('/collections/nope', { meta: { icon: 'x' } })).statusCode, 403);
      assert.equal((await patch('/collections/service_users', { meta: { icon: 'x' } })).statusCode, 403);
      assert.equal(errorCode(await patch('/collections', { collection: 'tags' })), 'INVALID_PAYLOAD');
    });

    it('deletes a collection with its table, fields, relations, permissions and the fields elsewhere that point at it', async () => {
      const [policy] = await knex('service_policies').select('id').limit(1);
      await knex('service_permissions').insert({ collection: 'tags', action: 'read', fields: '*', policy: policy.id });
      await patch('/collections/notes', { meta: { group: 'tags' } });
      const res = await del('/collections/tags');
      assert.equal(res.statusCode, 204, res.body);
      assert.equal((await get('/collections/tags')).statusCode, 403);
      assert.equal(errorCode(await get('/items/tags')), 'FORBIDDEN');
      assert.equal(await knex.schema.hasTable('tags'), false);
      // The junction's key to tags went with its relation; its key to articles stays.
      const junction = json(await get('/fields/articles_tags')).data.map((f: { field: string }) => f.field);
      assert.deepEqual(junction, ['id', 'articles_id']);
      const relations = json(await get('/relations')).data as {
        collection: string;
        field: string;
        related_collection: string;
        meta: { junction_field: string | null } | null;
      }[];
      assert.ok(!relations.some((r) => r.related_collection === 'tags' || r.collection === 'tags'));
      assert.equal(
        relations.find((r) => r.collection === 'articles_tags' && r.field === 'articles_id')!.meta!.junction_field,
        null,
      );
      assert.equal((await knex('service_fields').where({ collection: 'tags' })).length, 0);
      assert.equal((await knex('service_permissions').where({ collection: 'tags' })).length, 0);
      assert.equal(json(await get('/collections/notes')).data.meta.group, null);
      assert.equal(json(await get('/items/articles_tags?sort=id&limit=1')).data[0].articles_id, 1);

      // A collection that m2a junctions may point at leaves their allowed list.
      assert.equal((await del('/collections/headings')).statusCode, 204);
      const item = json(await get('/relations/pages_sections/item')).data;
      assert.deepEqual(item.meta.one_allowed_collections, ['paragraphs']);

      // Deleting the "one" side of an m2o drops the m2o column elsewhere (Directus does the same) and the o2m alias.
      assert.equal((await del('/collections/authors')).statusCode, 204);
      assert.equal((await get('/fields/articles/author')).statusCode, 403);
      assert.equal(json(await get('/items/articles?fields=id,title&sort=id&limit=1')).data[0].title, 'Hello World');

      assert.equal((await del('/collections/library')).statusCode, 204, 'a folder');
      assert.equal(json(await get('/collections/stock')).data.meta.group, null);
      assert.equal((await del('/collections/nope')).statusCode, 403);
      assert.equal((await del('/collections/service_users')).statusCode, 403);
    });

    it('deletes the junction of an m2m with the o2m alias fields on both sides', async () => {
      assert.equal((await get('/fields/pages/sections')).statusCode, 200);
      assert.equal((await del('/collections/pages_sections')).statusCode, 204);
      assert.equal((await get('/fields/pages/sections')).statusCode, 403);
      assert.equal((await get('/relations/pages_sections/item')).statusCode, 403);
      assert.deepEqual(json(await get('/items/pages?fields=id&sort=id&limit=1')).data, [{ id: 1 }]);
    });
  });
}
