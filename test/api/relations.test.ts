/**
 * /relations on every database: m2o with its foreign key and on_delete, Directus's m2m and m2a recipes step by
 * step (then nested reads through /items), changes of the key's actions, deletes that drop the key, refusals.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { clientLabel, knexFor, testClients } from '../helpers/test-db.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';

for (const client of testClients()) {
  describe(`relations (${clientLabel(client)})`, () => {
    let t: TestApp;
    let knex: Knex;
    before(async () => {
      t = await startTestApp(client, { fixture: false });
      knex = knexFor(t.testDb);
    });
    after(async () => {
      await knex?.destroy();
      await t?.close();
    });

    const get = (url: string, token?: string | null) => t.request({ method: 'GET', url, token });
    const post = async (url: string, payload: unknown, status = 200) => {
      const res = await t.request({ method: 'POST', url, payload: payload as object });
      assert.equal(res.statusCode, status, `POST ${url} ${JSON.stringify(payload)}: ${res.body}`);
      return json(res);
    };
    const patch = (url: string, payload: unknown) => t.request({ method: 'PATCH', url, payload: payload as object });
    const del = (url: string) => t.request({ method: 'DELETE', url });
    const collection = (name: string, fields: unknown[] = []) =>
      post('/collections', {
        collection: name,
        schema: {},
        meta: {},
        fields: [
          {
            field: 'id',
            type: 'integer',
            schema: { is_primary_key: true, has_auto_increment: true },
            meta: { hidden: true },
          },
          ...fields,
        ],
      });

    it('creates an m2o relation with its foreign key and o2m alias; nested reads and on_delete work at once', async () => {
      await collection('writers', [{ field: 'name', type: 'string' }]);
      await collection('posts', [
        { field: 'title', type: 'string' },
        { field: 'writer', type: 'integer', meta: { interface: 'select-dropdown-m2o', special: ['m2o'] } },
      ]);
      await post('/fields/writers', {
        field: 'posts',
        type: 'alias',
        meta: { interface: 'list-o2m', special: ['o2m'] },
      });
      const created = await post('/relations', {
        collection: 'posts',
        field: 'writer',
        related_collection: 'writers',
        meta: { one_field: 'posts', sort_field: null, one_deselect_action: 'nullify' },
        schema: { on_delete: 'SET NULL' },
      });
      const relation = created.data;
      assert.deepEqual(Object.keys(relation), ['collection', 'field', 'related_collection', 'schema', 'meta']);
      assert.equal(relation.related_collection, 'writers');
      assert.equal(relation.schema.foreign_key_table, 'writers');
      assert.equal(relation.schema.foreign_key_column, 'id');
      assert.equal(relation.schema.on_delete, 'SET NULL');
      assert.equal(relation.meta.one_field, 'posts');
      assert.equal(relation.meta.many_collection, 'posts');
      assert.equal(json(await get('/fields/posts/writer')).data.schema.foreign_key_table, 'writers');

      await knex('writers').insert([{ name: 'Ada' }, { name: 'Alan' }]);
      await knex('posts').insert([
        { title: 'One', writer: 1 },
        { title: 'Two', writer: 1 },
        { title: 'Three', writer: 2 },
      ]);
      assert.deepEqual(json(await get('/items/posts?fields=title,writer.name&sort=id&limit=1')).data, [
        { title: 'One', writer: { name: 'Ada' } },
      ]);
      assert.deepEqual(json(await get('/items/writers?fields=name,posts.title&sort=id&limit=1')).data, [
        { name: 'Ada', posts: [{ title: 'One' }, { title: 'Two' }] },
      ]);
      await assert.rejects(knex('posts').insert({ title: 'Orphan', writer: 99 }), 'the key holds');
      if (client === 'sqlite3') await knex.raw('pragma foreign_keys = on');
      await knex('writers').where({ id: 2 }).delete();
      assert.deepEqual(json(await get('/items/posts?fields=writer&filter[title][_eq]=Three')).data, [{ writer: null }]);
    });

    it('lists relations of every collection, of one, and one; unknown ones are 403', async () => {
      assert.ok((json(await get('/relations')).data as { collection: string }[]).some((r) => r.collection === 'posts'));
      assert.deepEqual(
        json(await get('/relations/posts')).data.map((r: { field: string }) => r.field),
        ['writer'],
      );
      assert.deepEqual(json(await get('/relations/writers')).data, [], 'only relations the collection holds');
      assert.equal((await get('/relations/nope')).statusCode, 403);
      assert.equal((await get('/relations/posts/title')).statusCode, 403);
      assert.equal((await get('/relations', null)).statusCode, 403);
    });

    it('changes the key action and the meta of a relation', async () => {
      const res = await patch('/relations/posts/writer', {
        schema: { on_delete: 'CASCADE' },
        meta: { one_deselect_action: 'delete' },
      });
      assert.equal(res.statusCode, 200, res.body);
      const relation = json(res).data;
      assert.equal(relation.schema.on_delete, 'CASCADE');
      assert.equal(relation.meta.one_deselect_action, 'delete');
      assert.equal(relation.meta.one_field, 'posts');
      if (client === 'sqlite3') await knex.raw('pragma foreign_keys = on');
      await knex('writers').where({ id: 1 }).delete();
      assert.deepEqual(json(await get('/items/posts?fields=title')).data, [{ title: 'Three' }]);
      const bad = await patch('/relations/posts/writer', { related_collection: 'posts' });
      assert.equal(bad.statusCode, 400);
      assert.equal((await patch('/relations/posts/nope', { meta: {} })).statusCode, 403);
    });

    it('deletes a relation with its foreign key; the columns and data stay', async () => {
      assert.equal((await del('/relations/posts/writer')).statusCode, 204);
      assert.equal((await get('/relations/posts/writer')).statusCode, 403);
      assert.equal(json(await get('/fields/posts/writer')).data.schema.foreign_key_table, null);
      await knex('posts').insert({ title: 'Free', writer: 42 });
      assert.deepEqual(json(await get('/items/posts?fields=title,writer&sort=id')).data, [
        { title: 'Three', writer: null },
        { title: 'Free', writer: 42 },
      ]);
      assert.equal((await del('/relations/posts/writer')).statusCode, 403);
    });

    it('builds an m2m the way Directus does it, then reads through the junction', async () => {
      await collection('books', [{ field: 'title', type: 'string' }]);
      await collection('genres', [{ field: 'name', type: 'string' }]);
      await post('/collections', {
        collection: 'books_genres',
        meta: { hidden: true, icon: 'import_export' },
        schema: {},
        fields: [
          {
            field: 'id',
            type: 'integer',
            schema: { has_auto_increment: true, is_primary_key: true },
            meta: { hidden: true },
          },
          { field: 'books_id', type: 'integer', schema: {}, meta: { hidden: true } },
          { field: 'genres_id', type: 'integer', schema: {}, meta: { hidden: true } },
        ],
      });
      await post('/fields/books', {
        field: 'genres',
        type: 'alias',
        meta: { special: ['m2m'], interface: 'list-m2m' },
      });
      await post('/relations', {
        collection: 'books_genres',
        field: 'books_id',
        related_collection: 'books',
        meta: { one_field: 'genres', junction_field: 'genres_id', sort_field: null },
        schema: { on_delete: 'SET NULL' },
      });
      await post('/relations', {
        collection: 'books_genres',
        field: 'genres_id',
        related_collection: 'genres',
        meta: { one_field: null, junction_field: 'books_id' },
        schema: { on_delete: 'SET NULL' },
      });
      await knex('books').insert([{ title: 'Dune' }, { title: 'Emma' }]);
      await knex('genres').insert([{ name: 'SF' }, { name: 'Classic' }, { name: 'Epic' }]);
      await knex('books_genres').insert([
        { books_id: 1, genres_id: 1 },
        { books_id: 1, genres_id: 3 },
        { books_id: 2, genres_id: 2 },
      ]);
      const books = json(await get('/items/books?fields=title,genres.genres_id.name&sort=id')).data;
      assert.deepEqual(books, [
        { title: 'Dune', genres: [{ genres_id: { name: 'SF' } }, { genres_id: { name: 'Epic' } }] },
        { title: 'Emma', genres: [{ genres_id: { name: 'Classic' } }] },
      ]);
      const filtered = json(await get('/items/books?fields=title&filter[genres][genres_id][name][_eq]=Classic')).data;
      assert.deepEqual(filtered, [{ title: 'Emma' }]);
    });

    it('builds an m2a the way Directus does it, then reads each collection of it', async () => {
      await collection('pages', [{ field: 'title', type: 'string' }]);
      await collection('quotes', [{ field: 'text', type: 'string' }]);
      await collection('notes', [{ field: 'body', type: 'text' }]);
      await post('/collections', {
        collection: 'pages_blocks',
        meta: { hidden: true },
        schema: {},
        fields: [
          { field: 'id', type: 'integer', schema: { has_auto_increment: true, is_primary_key: true } },
          { field: 'pages_id', type: 'integer' },
          { field: 'item', type: 'string' },
          { field: 'collection', type: 'string' },
          { field: 'sort', type: 'integer' },
        ],
      });
      await post('/fields/pages', {
        field: 'blocks',
        type: 'alias',
        meta: { special: ['m2a'], interface: 'list-m2a' },
      });
      const a2o = await post('/relations', {
        collection: 'pages_blocks',
        field: 'item',
        related_collection: null,
        meta: {
          one_allowed_collections: ['quotes', 'notes'],
          one_collection_field: 'collection',
          junction_field: 'pages_id',
        },
        schema: null,
      });
      assert.equal(a2o.data.related_collection, null);
      assert.equal(a2o.data.schema, null);
      assert.deepEqual(a2o.data.meta.one_allowed_collections, ['quotes', 'notes']);
      await post('/relations', {
        collection: 'pages_blocks',
        field: 'pages_id',
        related_collection: 'pages',
        meta: { one_field: 'blocks', junction_field: 'item', sort_field: 'sort' },
        schema: { on_delete: 'CASCADE' },
      });
      await knex('pages').insert({ title: 'Home' });
      await knex('quotes').insert({ text: 'Be brief.' });
      await knex('notes').insert({ body: 'Long form.' });
      await knex('pages_blocks').insert([
        { pages_id: 1, item: '1', collection: 'notes', sort: 2 },
        { pages_id: 1, item: '1', collection: 'quotes', sort: 1 },
      ]);
      const pages = json(
        await get('/items/pages?fields=title,blocks.collection,blocks.item:quotes.text,blocks.item:notes.body'),
      ).data;
      assert.deepEqual(pages, [
        {
          title: 'Home',
          blocks: [
            { collection: 'quotes', item: { text: 'Be brief.' } },
            { collection: 'notes', item: { body: 'Long form.' } },
          ],
        },
      ]);
    });

    it('creates a relation without a foreign key when schema is null', async () => {
      await collection('loose', [{ field: 'book', type: 'integer' }]);
      const created = await post('/relations', {
        collection: 'loose',
        field: 'book',
        related_collection: 'books',
        schema: null,
      });
      assert.equal(created.data.schema, null);
      await knex('loose').insert({ book: 99 });
      // A key added later checks the data first.
      const res = await patch('/relations/loose/book', { schema: { on_delete: 'SET NULL' } });
      assert.equal(res.statusCode, 400);
      assert.match(json(res).errors[0].extensions.reason, /holds 1 value\(s\) that are not keys of collection "books"/);
      await knex('loose').update({ book: 1 });
      const keyed = await patch('/relations/loose/book', { schema: { on_delete: 'SET NULL' } });
      assert.equal(keyed.statusCode, 200, keyed.body);
      assert.equal(json(keyed).data.schema.on_delete, 'SET NULL');
      const dropped = await patch('/relations/loose/book', { schema: null });
      assert.equal(json(dropped).data.schema, null);
    });

    it('relates a uuid field to the users of Strata itself', async () => {
      await collection('tasks', [{ field: 'owner', type: 'uuid', meta: { special: ['user-created'] } }]);
      const created = await post('/relations', {
        collection: 'tasks',
        field: 'owner',
        related_collection: 'service_users',
        schema: { on_delete: 'SET NULL' },
      });
      assert.equal(created.data.schema.foreign_key_table, 'service_users');
      const [admin] = await knex('service_users').select('id');
      await knex('tasks').insert({ owner: admin.id });
      assert.deepEqual(json(await get('/items/tasks?fields=owner.email')).data, [
        { owner: { email: 'admin@example.com' } },
      ]);
    });

    it('refuses bad relations with INVALID_PAYLOAD naming the problem', async () => {
      await collection('things', [
        { field: 'label', type: 'string' },
        { field: 'book', type: 'integer' },
        { field: 'owner', type: 'integer', schema: { is_nullable: false, default_value: 1 } },
      ]);
      const cases: [unknown, RegExp][] = [
        [{ collection: 'nope', field: 'x', related_collection: 'books' }, /Collection "nope" doesn't exist/],
        [
          { collection: 'things', field: 'nope', related_collection: 'books' },
          /Field "nope" doesn't exist in collection "things"/,
        ],
        [
          { collection: 'things', field: 'book', related_collection: 'nope' },
          /Related collection "nope" doesn't exist/,
        ],
        [
          { collection: 'things', field: 'label', related_collection: 'books' },
          /\(string\) can't reference "books.id" \(integer\)/,
        ],
        [
          { collection: 'things', field: 'owner', related_collection: 'books', schema: { on_delete: 'SET NULL' } },
          /not nullable/,
        ],
        [
          { collection: 'things', field: 'book', related_collection: 'books', schema: { on_delete: 'EXPLODE' } },
          /"schema.on_delete" must be one of/,
        ],
        [
          { collection: 'things', field: 'book', related_collection: 'books', meta: { one_field: 'title' } },
          /has a column/,
        ],
        [
          { collection: 'things', field: 'book', related_collection: 'books', meta: { junction_field: 'nope' } },
          /Field "nope" \("meta.junction_field"\) doesn't exist/,
        ],
        [
          {
            collection: 'things',
            field: 'label',
            related_collection: null,
            meta: { one_allowed_collections: ['books'] },
          },
          /one_collection_field/,
        ],
        [
          { collection: 'posts', field: 'title', related_collection: 'writers' },
          /already has an associated relationship|can't reference/,
        ],
        [{ field: 'x' }, /"collection" is required/],
      ];
      for (const [payload, reason] of cases) {
        const res = await t.request({ method: 'POST', url: '/relations', payload: payload as object });
        assert.equal(res.statusCode, 400, `${JSON.stringify(payload)}: ${res.body}`);
        assert.equal(errorCode(res), 'INVALID_PAYLOAD');
        assert.match(json(res).errors[0].extensions.reason, reason);
      }
      const duplicate = await t.request({
        method: 'POST',
        url: '/relations',
        payload: { collection: 'books_genres', field: 'books_id', related_collection: 'books' },
      });
      assert.match(json(duplicate).errors[0].extensions.reason, /already has an associated relationship/);
      const forbidden = await t.request({
        method: 'POST',
        url: '/relations',
        payload: { collection: 'things', field: 'book', related_collection: 'books' },
        token: null,
      });
      assert.equal(forbidden.statusCode, 403);
    });
  });
}
