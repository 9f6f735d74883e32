/**
 * Per-caller GraphQL schemas and the endpoint's error cases on every database: a restricted role's introspection
 * lacks the collections and fields it may not read, its reads carry its row rules as REST's do, the public schema
 * of nobody is `_empty`; settings (introspection off, token limit), 405s, missing query, schema changes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPolicy, createUserWithPolicies, grantPublic } from '../helpers/access-fixture.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { assertSame, gql, gqlData, rest, restAsGraphql } from './helpers.js';

const typeFields = async (t: TestApp, type: string, token?: string | null) => {
  const data = await gqlData(t, `{ __type(name: "${type}") { fields { name } } }`, { token });
  return data.__type ? data.__type.fields.map((f: { name: string }) => f.name) : null;
};

for (const client of testClients()) {
  describe(`GraphQL schemas per caller and errors (${clientLabel(client)})`, () => {
    let t: TestApp;
    let strict: TestApp;
    let reader: string;

    before(async () => {
      t = await startTestApp(client, { relations: true });
      const policy = await createPolicy(t, {
        permissions: [
          { collection: 'articles', fields: 'id,title,status,author', permissions: { status: { _eq: 'published' } } },
          { collection: 'authors', fields: 'id,name' },
        ],
      });
      reader = (await createUserWithPolicies(t, [policy])).token;
      strict = await startTestApp(client, { env: { GRAPHQL_INTROSPECTION: 'false', GRAPHQL_QUERY_TOKEN_LIMIT: '40' } });
    });
    after(async () => {
      await t?.close();
      await strict?.close();
    });

    it('gives a restricted role a schema of what it may read, and its reads match REST', async () => {
      const query = await typeFields(t, 'Query', reader);
      assert.deepEqual([...query].sort(), [
        'articles',
        'articles_aggregated',
        'articles_by_id',
        'authors',
        'authors_aggregated',
        'authors_by_id',
      ]);
      assert.deepEqual(await typeFields(t, 'articles', reader), ['id', 'title', 'status', 'author']);
      assert.equal(await typeFields(t, 'tags', reader), null);
      assert.equal(await typeFields(t, 'Mutation', reader), null, 'no write rules, no mutations');
      const adminArticles = await typeFields(t, 'articles');
      assert.ok(adminArticles.includes('body') && adminArticles.includes('tags'));

      const data = await gqlData(t, '{ articles(sort: ["id"]) { id title author { name } } }', { token: reader });
      assertSame(
        data.articles,
        await restAsGraphql(t, '/items/articles', { fields: 'id,title,author.name', sort: 'id' }, reader),
      );
      assert.ok(data.articles.length > 0);
      assert.ok(data.articles.length < (await rest(t, '/items/articles', { fields: 'id', limit: -1 })).length);

      const forbidden = await gql(t, '{ articles { body } }', { token: reader });
      assert.equal(forbidden.status, 400);
      assert.equal(forbidden.body.errors[0].extensions.code, 'GRAPHQL_VALIDATION');
      const hidden = await gql(t, '{ tags { id } }', { token: reader });
      assert.equal(hidden.status, 400);
    });

    it('lists the mutations a role’s write rules allow, and the writer applies the rules', async () => {
      const policy = await createPolicy(t, {
        permissions: [
          { collection: 'tags', fields: 'id,name' },
          { collection: 'tags', action: 'create', fields: 'name' },
          { collection: 'tags', action: 'update', fields: 'name', permissions: { name: { _starts_with: 'mine-' } } },
        ],
      });
      const writer = (await createUserWithPolicies(t, [policy])).token;
      const mutations = (await typeFields(t, 'Mutation', writer)).sort();
      assert.deepEqual(mutations, [
        'create_tags_item',
        'create_tags_items',
        'update_tags_batch',
        'update_tags_item',
        'update_tags_items',
      ]);
      const inputFields = async (type: string) =>
        (
          await gqlData(t, `{ __type(name: "${type}") { inputFields { name } } }`, { token: writer })
        ).__type.inputFields.map((f: { name: string }) => f.name);
      assert.deepEqual(
        await inputFields('create_tags_input'),
        ['name'],
        'inputs hold the fields the rules let the role write',
      );
      assert.deepEqual(await inputFields('update_tags_input'), ['id', 'name'], 'and the key that names a row');
      const unwritable = await gql(t, 'mutation { create_tags_item(data: {id: 999, name: "x"}) { id } }', {
        token: writer,
      });
      assert.equal(unwritable.status, 400);
      const created = await gqlData(t, 'mutation { create_tags_item(data: {name: "mine-1"}) { id name } }', {
        token: writer,
      });
      assert.equal(created.create_tags_item.name, 'mine-1');
      assertSame(
        created.create_tags_item,
        await restAsGraphql(t, `/items/tags/${created.create_tags_item.id}`, { fields: 'id,name' }, writer),
      );
      const renamed = await gqlData(
        t,
        `mutation { update_tags_item(id: ${created.create_tags_item.id}, data: {name: "mine-2"}) { name } }`,
        { token: writer },
      );
      assert.deepEqual(renamed.update_tags_item, { name: 'mine-2' });
      const notMine = await gql(t, 'mutation { update_tags_item(id: 1, data: {name: "taken"}) { name } }', {
        token: writer,
      });
      assert.equal(notMine.status, 200);
      assert.equal(notMine.body.errors[0].extensions.code, 'FORBIDDEN');
      assert.notEqual((await rest(t, '/items/tags/1', { fields: 'name' })).name, 'taken');
      const deleting = await gql(t, 'mutation { delete_tags_item(id: 1) { id } }', { token: writer });
      assert.equal(deleting.status, 400, 'no delete rule: no delete mutation');
    });

    it('gives a collection the caller may only create in its create mutations and input, and no query', async () => {
      const policy = await createPolicy(t, {
        permissions: [{ collection: 'headings', action: 'create', fields: 'text,level' }],
      });
      const creator = (await createUserWithPolicies(t, [policy])).token;
      assert.deepEqual(await typeFields(t, 'Query', creator), ['_empty']);
      assert.deepEqual((await typeFields(t, 'Mutation', creator)).sort(), [
        'create_headings_item',
        'create_headings_items',
      ]);
      assert.equal(await typeFields(t, 'headings', creator), null, 'no read type');
      const input = await gqlData(
        t,
        '{ __type(name: "create_headings_input") { inputFields { name type { kind } } } }',
        {
          token: creator,
        },
      );
      assert.deepEqual(
        input.__type.inputFields.map((f: { name: string; type: { kind: string } }) => [f.name, f.type.kind]),
        [
          ['text', 'NON_NULL'],
          ['level', 'SCALAR'],
        ],
      );
      const one = await gqlData(t, 'mutation { create_headings_item(data: { text: "made", level: 2 }) }', {
        token: creator,
      });
      assert.deepEqual(one, { create_headings_item: true });
      const many = await gqlData(t, 'mutation { create_headings_items(data: [{ text: "a" }, { text: "b" }]) }', {
        token: creator,
      });
      assert.deepEqual(many, { create_headings_items: true });
      const made = await rest(t, '/items/headings', {
        filter: { text: { _in: ['made', 'a', 'b'] } },
        fields: 'text,level',
      });
      assert.deepEqual(made.map((row: { text: string }) => row.text).sort(), ['a', 'b', 'made']);
      const refused = await gql(t, 'mutation { create_headings_item(data: { text: "x", id: 99 }) }', {
        token: creator,
      });
      assert.equal(refused.status, 400, 'the input holds only the fields the rule allows');

      // The public, the same way (its schema is built apart).
      await grantPublic(t, [{ collection: 'pages', action: 'create', fields: 'title' }]);
      assert.ok((await typeFields(t, 'Mutation', null)).includes('create_pages_item'));
      assert.deepEqual(await gqlData(t, 'mutation { create_pages_item(data: { title: "p" }) }', { token: null }), {
        create_pages_item: true,
      });
    });

    it('gives a caller who may read nothing the _empty schema, and follows permission changes', async () => {
      assert.deepEqual(await typeFields(t, 'Query', null), ['_empty']);
      assert.deepEqual(await gqlData(t, '{ _empty }', { token: null }), { _empty: null });
      await grantPublic(t, [{ collection: 'tags', fields: 'id,name' }]);
      assert.deepEqual((await typeFields(t, 'Query', null)).sort(), ['tags', 'tags_aggregated', 'tags_by_id']);
      const tags = await gqlData(t, '{ tags(sort: ["id"]) { id name } }', { token: null });
      assertSame(tags.tags, await restAsGraphql(t, '/items/tags', { fields: 'id,name', sort: 'id' }, null));
    });

    it('follows schema changes', async () => {
      const created = await t.request({
        method: 'POST',
        url: '/fields/tags',
        payload: { field: 'colour', type: 'string' },
      });
      assert.equal(created.statusCode, 200, created.body);
      assert.ok((await typeFields(t, 'tags')).includes('colour'));
      const data = await gqlData(t, '{ tags(limit: 1) { id colour } }');
      assert.equal(data.tags[0].colour, null);
    });

    it('answers 405 for other methods, INVALID_PAYLOAD without a query', async () => {
      for (const url of ['/graphql', '/graphql/system']) {
        for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
          const response = await t.request({ method, url, payload: { query: '{ __typename }' } });
          assert.equal(response.statusCode, 405, `${method} ${url}`);
          assert.equal(response.headers.allow, 'GET, POST');
          assert.equal(json(response).errors[0].extensions.code, 'METHOD_NOT_ALLOWED');
        }
        const none = await t.request({ method: 'POST', url, payload: { variables: {} } });
        assert.equal(none.statusCode, 400);
        assert.equal(json(none).errors[0].extensions.code, 'INVALID_PAYLOAD');
        const get = await t.request({ method: 'GET', url });
        assert.equal(json(get).errors[0].extensions.code, 'INVALID_PAYLOAD');
      }
    });

    it('refuses introspection when GRAPHQL_INTROSPECTION is false and documents over GRAPHQL_QUERY_TOKEN_LIMIT', async () => {
      const introspection = await gql(strict, '{ __schema { types { name } } }');
      assert.equal(introspection.status, 400);
      assert.equal(introspection.body.errors[0].extensions.code, 'GRAPHQL_VALIDATION');
      assert.match(introspection.body.errors[0].extensions.errors[0].message, /introspection/i);
      assert.deepEqual((await gql(strict, '{ tags(limit: 1) { id } }')).body.data, { tags: [{ id: '1' }] });
      const long = `{ ${Array.from({ length: 30 }, (_, i) => `a${i}: tags(limit: 1) { id }`).join(' ')} }`;
      const limited = await gql(strict, long);
      assert.equal(limited.status, 400);
      assert.equal(limited.body.errors[0].extensions.code, 'GRAPHQL_VALIDATION');
      assert.match(limited.body.errors[0].extensions.errors[0].message, /more that 40 tokens/);
      assert.equal((await gql(t, long)).status, 200, 'the default limit lets it through');
    });
  });
}
