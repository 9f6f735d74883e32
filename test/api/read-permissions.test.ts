/**
 * Read permissions on every database: rows, field sets and field guards applied to lists, single items, nested
 * levels, filters, sorts, search, counts and aggregates — and nothing hidden ever shows, not even its existence.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import qs from 'qs';
import { createPolicy, createUserWithPolicies, grantPublic } from '../helpers/access-fixture.js';
import { clientLabel, knexFor, nullsSortLargest, testClients } from '../helpers/test-db.js';
import { ADMIN, errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { queryBuilder } from '../../src/db/connection.js';

for (const client of testClients()) {
  describe(`read permissions (${clientLabel(client)})`, () => {
    let t: TestApp;
    let reader: string;
    let owner: string;
    let nobody: string;
    const get = (token: string | null, path: string, query: Record<string, unknown> = {}) => {
      const search = qs.stringify(query, { encodeValuesOnly: true });
      return t.request({ method: 'GET', url: `${path}${search ? `?${search}` : ''}`, token });
    };
    const data = async (token: string | null, path: string, query: Record<string, unknown> = {}) => {
      const response = await get(token, path, query);
      assert.equal(response.statusCode, 200, response.body);
      return json(response).data;
    };
    const ids = async (token: string | null, path: string, query: Record<string, unknown> = {}) =>
      (await data(token, path, { fields: 'id', sort: 'id', ...query })).map((row: { id: number }) => row.id);

    before(async () => {
      t = await startTestApp(client, { relations: true });
      const published = await createPolicy(t, {
        permissions: [
          {
            collection: 'articles',
            fields: 'id,title,status,author,tags,rating',
            permissions: { status: { _eq: 'published' } },
          },
          { collection: 'authors', fields: 'id,name,articles' },
          { collection: 'articles_tags', fields: '*' },
        ],
      });
      const bodies = await createPolicy(t, {
        permissions: [{ collection: 'articles', fields: 'body', permissions: { rating: { _gte: 4 } } }],
      });
      reader = (await createUserWithPolicies(t, [published, bodies])).token;
      const own = await createPolicy(t, {
        permissions: [{ collection: 'articles', fields: '*', permissions: { uid: { _eq: '$CURRENT_USER' } } }],
      });
      const ownUser = await createUserWithPolicies(t, [own]);
      owner = ownUser.token;
      const k = knexFor(t.testDb);
      try {
        await k('articles').where({ id: 2 }).update({ uid: ownUser.id });
      } finally {
        await k.destroy();
      }
      nobody = (await createUserWithPolicies(t, [await createPolicy(t, { permissions: [] })])).token;
      await grantPublic(t, [{ collection: 'tags', fields: 'id,name' }]);
    });
    after(async () => {
      await t?.close();
    });

    it('lists only the rows and fields the rules grant, null where a field is granted for other rows only', async () => {
      const rows = await data(reader, '/items/articles', { sort: 'id' });
      assert.deepEqual(rows, [
        {
          id: 1,
          title: 'Hello World',
          body: 'First post body',
          status: 'published',
          rating: 5,
          author: 1,
          tags: [1, 2],
        },
        { id: 2, title: 'Second Post', body: null, status: 'published', rating: 3, author: 1, tags: [3] },
        {
          id: 4,
          title: 'Machines Thinking',
          body: 'Can machines think?',
          status: 'published',
          rating: 4,
          author: 2,
          tags: [4, 5],
        },
        { id: 6, title: 'Unicode ✓ — 日本語', body: null, status: 'published', rating: 1, author: null, tags: [] },
      ]);
      assert.deepEqual(
        json(await get(reader, '/items/articles', { fields: 'id', meta: '*', filter: { rating: { _gte: 3 } } })).meta,
        { total_count: 4, filter_count: 3 },
      );
      assert.deepEqual(await data(reader, '/items/articles', { aggregate: { count: '*', sum: 'rating' } }), [
        { count: 4, sum: { rating: 13 } },
      ]);
      assert.deepEqual(await ids(owner, '/items/articles'), [2]);
    });

    it('answers a hidden item exactly like a missing one', async () => {
      const hidden = await get(reader, '/items/articles/3');
      const missing = await get(reader, '/items/articles/999');
      assert.equal(hidden.statusCode, 403);
      assert.equal(hidden.body, missing.body);
      assert.equal((await get(reader, '/items/articles/1', { fields: 'title' })).statusCode, 200);
    });

    it('refuses unreadable fields wherever they are named, as if they did not exist', async () => {
      const refused = [
        { fields: 'price' },
        { fields: 'author.email' },
        { filter: { price: { _gt: 1 } } },
        { sort: '-price' },
        { sort: 'author.email' },
        { aggregate: { sum: 'price' } },
        { aggregate: { count: '*' }, groupBy: 'publish_date' },
        { filter: { author: { email: { _eq: 'x' } } } },
      ];
      for (const query of refused) {
        const response = await get(reader, '/items/articles', query);
        assert.equal(errorCode(response), 'FORBIDDEN', JSON.stringify(query));
        assert.match(json(response).errors[0].message, /or it does not exist/);
      }
    });

    it('never matches hidden values through search, filters, sorts or relational filters', async () => {
      // "Another body" is article 2's body, which this reader may not see; article 5 (Compilers) is hidden.
      assert.deepEqual(await ids(reader, '/items/articles', { search: 'another' }), []);
      assert.deepEqual(await ids(reader, '/items/articles', { search: 'compilers' }), []);
      assert.deepEqual(await ids(reader, '/items/articles', { search: 'first' }), [1]);
      assert.deepEqual(await ids(reader, '/items/articles', { filter: { body: { _nnull: true } } }), [1, 4]);
      assert.deepEqual(
        await ids(reader, '/items/authors', { filter: { articles: { status: { _eq: 'archived' } } } }),
        [],
      );
      assert.deepEqual(
        await ids(reader, '/items/authors', { filter: { articles: { _none: { status: { _eq: 'published' } } } } }),
        [3],
      );
      const sorted = await data(reader, '/items/articles', { fields: 'id', sort: '-body,id' });
      assert.deepEqual(
        sorted.map((r: { id: number }) => r.id),
        nullsSortLargest(client) ? [2, 6, 1, 4] : [1, 4, 2, 6],
      );
    });

    it('applies each related collection’s rules at every nested level, and leaves unreadable relations out of *.*', async () => {
      const authors = await data(reader, '/items/authors', { fields: 'name,articles.id,count(articles)', sort: 'id' });
      assert.deepEqual(authors, [
        { name: 'Ada Lovelace', articles: [{ id: 1 }, { id: 2 }], articles_count: 2 },
        { name: 'Alan Turing', articles: [{ id: 4 }], articles_count: 1 },
        { name: 'Grace Hopper', articles: [], articles_count: 0 },
      ]);
      assert.deepEqual(await data(reader, '/items/articles/1', { fields: 'author.*' }), {
        author: { id: 1, name: 'Ada Lovelace', articles: [1, 2] },
      });
      assert.equal(errorCode(await get(reader, '/items/articles', { fields: 'tags.tags_id.name' })), 'FORBIDDEN');
      assert.equal(
        errorCode(
          await get(reader, '/items/articles', { filter: { tags: { tags_id: { name: { _eq: 'science' } } } } }),
        ),
        'FORBIDDEN',
      );
      const [first] = await data(reader, '/items/articles', { fields: '*.*', limit: 1 });
      assert.deepEqual(first.author, { id: 1, name: 'Ada Lovelace', articles: [1, 2] });
      assert.deepEqual(
        first.tags.map((tag: { tags_id: number }) => tag.tags_id),
        [1, 3],
      );
      assert.equal(errorCode(await get(reader, '/items/articles', { fields: 'tags.tags_id.*' })), 'FORBIDDEN');
    });

    it('resolves $CURRENT_USER.<path>, $CURRENT_ROLE.<path> and $CURRENT_ROLES in rules and in query filters', async () => {
      const policy = await createPolicy(t, {
        permissions: [
          {
            collection: 'articles',
            fields: 'id,title',
            permissions: {
              _or: [
                { title: { _eq: '$CURRENT_USER.title' } },
                { slug: { _in: '$CURRENT_ROLES' } },
                { title: { _eq: '$CURRENT_ROLE.name' } },
              ],
            },
          },
        ],
      });
      const dyn = await createUserWithPolicies(t, [policy]);
      const knex = queryBuilder(t.context.db);
      await knex('service_users').update({ title: 'Compilers' }).where('id', dyn.id);
      await knex('service_roles').update({ name: 'Hello World' }).where('id', dyn.role);
      const k = knexFor(t.testDb);
      try {
        await k('articles').where({ id: 3 }).update({ slug: dyn.role });
        await k('authors').where({ id: 3 }).update({ email: 'admin@example.com' });
      } finally {
        await k.destroy();
      }
      assert.deepEqual(await ids(dyn.token, '/items/articles'), [1, 3, 5]);
      assert.deepEqual(
        await ids(dyn.token, '/items/articles', { filter: { title: { _eq: '$CURRENT_USER.title' } } }),
        [5],
      );
      // An admin's query may use them too.
      assert.deepEqual(
        await ids(ADMIN.token, '/items/authors', { filter: { email: { _eq: '$CURRENT_USER.email' } } }),
        [3],
      );
      assert.deepEqual(
        await ids(ADMIN.token, '/items/authors', { filter: { email: { _eq: '$CURRENT_USER.nope' } } }),
        [],
      );
    });

    it('refuses callers without read access, and serves the public only what the Public policy grants', async () => {
      assert.equal(errorCode(await get(nobody, '/items/articles')), 'FORBIDDEN');
      assert.equal(errorCode(await get(null, '/items/articles')), 'FORBIDDEN');
      assert.deepEqual(await data(null, '/items/tags', { sort: 'id', fields: 'name' }), [
        { name: 'science' },
        { name: 'history' },
        { name: 'computing' },
        { name: 'unused' },
      ]);
      assert.equal(errorCode(await get(null, '/items/tags', { fields: 'articles' })), 'FORBIDDEN');
    });
  });
}
