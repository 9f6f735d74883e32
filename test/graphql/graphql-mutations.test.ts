/**
 * GraphQL mutations over /graphql on every database, each compared with the same write through REST: create one and
 * many (nested m2o, o2m and m2m writes), update by id, by ids and in batch, delete one and many, a singleton; the
 * selection set is the re-read; failures keep their catalogue codes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { addWriteFixture } from '../helpers/write-fixture.js';
import { assertSame, gql, gqlData, rest, restAsGraphql } from './helpers.js';

for (const client of testClients()) {
  describe(`GraphQL mutations (${clientLabel(client)})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(client, { relations: true });
      await addWriteFixture(t);
    });
    after(async () => {
      await t?.close();
    });

    const restWrite = async (method: 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) => {
      const response = await t.request({ method, url, payload: payload as object });
      assert.ok(response.statusCode < 300, response.body);
      return response.statusCode === 204 ? null : json(response).data;
    };

    it('creates one item with nested m2o and m2m writes, as REST does', async () => {
      const selection = 'id title status author { name } tags { tags_id { name } }';
      const data = await gqlData(
        t,
        `mutation { create_articles_item(data: {title: "GQL one", status: "draft", author: {name: "Grace Hopper"}, tags: [{tags_id: {name: "compilers"}}]}) { ${selection} } }`,
      );
      assert.deepEqual(data.create_articles_item.tags, [{ tags_id: { name: 'compilers' } }]);
      assert.deepEqual(data.create_articles_item.author, { name: 'Grace Hopper' });
      // The same body through REST writes the same shape.
      const viaRest = await restWrite('POST', '/items/articles?fields=title,status,author.name,tags.tags_id.name', {
        title: 'GQL one',
        status: 'draft',
        author: { name: 'Grace Hopper' },
        tags: [{ tags_id: { name: 'compilers (REST)' } }],
      });
      assert.deepEqual(viaRest, {
        title: 'GQL one',
        status: 'draft',
        author: { name: 'Grace Hopper' },
        tags: [{ tags_id: { name: 'compilers (REST)' } }],
      });
      assertSame(
        data.create_articles_item,
        await restAsGraphql(t, `/items/articles/${data.create_articles_item.id}`, {
          fields: 'id,title,status,author.name,tags.tags_id.name',
        }),
      );
    });

    it('creates many items, answered as the selection and the query arguments read them', async () => {
      const data = await gqlData(
        t,
        'mutation { create_tags_items(data: [{name: "gq-a"}, {name: "gq-b"}, {name: "gq-c"}], sort: ["-name"], limit: 2) { id name } }',
      );
      assert.deepEqual(
        data.create_tags_items.map((tag: { name: string }) => tag.name),
        ['gq-c', 'gq-b'],
      );
      const stored = await rest(t, '/items/tags', {
        fields: 'name',
        filter: { name: { _starts_with: 'gq-' } },
        sort: 'name',
      });
      assert.deepEqual(stored, [{ name: 'gq-a' }, { name: 'gq-b' }, { name: 'gq-c' }]);
    });

    it('creates an o2m parent with its children', async () => {
      const data = await gqlData(
        t,
        'mutation { create_authors_item(data: {name: "Parent", articles: [{title: "Child 1"}, {title: "Child 2"}]}) { id name articles(sort: ["title"]) { title } } }',
      );
      assert.deepEqual(data.create_authors_item.articles, [{ title: 'Child 1' }, { title: 'Child 2' }]);
      assertSame(
        data.create_authors_item,
        await restAsGraphql(t, `/items/authors/${data.create_authors_item.id}`, {
          fields: 'id,name,articles.title',
          deep: { articles: { _sort: 'title' } },
        }),
      );
    });

    it('updates one item, many by ids and a batch', async () => {
      const one = await gqlData(
        t,
        'mutation { update_articles_item(id: 2, data: {title: "Renamed", rating: 5}) { id title rating } }',
      );
      assertSame(one.update_articles_item, await restAsGraphql(t, '/items/articles/2', { fields: 'id,title,rating' }));
      assert.equal(one.update_articles_item.title, 'Renamed');

      const many = await gqlData(
        t,
        'mutation { update_articles_items(ids: [1, 3], data: {status: "archived"}, sort: ["id"]) { id status } }',
      );
      assert.deepEqual(many.update_articles_items, [
        { id: '1', status: 'archived' },
        { id: '3', status: 'archived' },
      ]);
      const batch = await gqlData(
        t,
        'mutation { update_tags_batch(data: [{id: 1, name: "sci"}, {id: 2, name: "hist"}], sort: ["id"]) { id name } }',
      );
      assert.deepEqual(batch.update_tags_batch, [
        { id: '1', name: 'sci' },
        { id: '2', name: 'hist' },
      ]);
      assertSame(
        batch.update_tags_batch,
        await restAsGraphql(t, '/items/tags', { fields: 'id,name', filter: { id: { _in: [1, 2] } }, sort: 'id' }),
      );
    });

    it('deletes one and many, answering the keys', async () => {
      const created = await gqlData(
        t,
        'mutation { create_tags_items(data: [{name: "del-1"}, {name: "del-2"}, {name: "del-3"}]) { id } }',
      );
      const [a, b, c] = created.create_tags_items.map((tag: { id: string }) => tag.id);
      const one = await gqlData(t, `mutation { delete_tags_item(id: ${a}) { id } }`);
      assert.deepEqual(one.delete_tags_item, { id: a });
      const many = await gqlData(t, `mutation { delete_tags_items(ids: [${b}, ${c}]) { ids } }`);
      assert.deepEqual(many.delete_tags_items, { ids: [b, c] });
      assert.deepEqual(await rest(t, '/items/tags', { filter: { name: { _starts_with: 'del-' } } }), []);
    });

    it('updates a singleton (creating its row first)', async () => {
      const empty = await gqlData(t, '{ site { id site_name } }');
      assert.deepEqual(empty.site, { id: null, site_name: null });
      const created = await gqlData(
        t,
        'mutation { update_site(data: {site_name: "Strata", visits: 1}) { site_name visits } }',
      );
      assert.deepEqual(created.update_site, { site_name: 'Strata', visits: 1 });
      const updated = await gqlData(t, 'mutation { update_site(data: {visits: 2}) { site_name visits } }');
      assert.deepEqual(updated.update_site, { site_name: 'Strata', visits: 2 });
      assertSame(updated.update_site, await restAsGraphql(t, '/items/site', { fields: 'site_name,visits' }));
      const schema = await gqlData(t, '{ __type(name: "Mutation") { fields { name } } }');
      const names = schema.__type.fields.map((f: { name: string }) => f.name);
      assert.ok(names.includes('update_site'));
      assert.ok(
        !names.includes('create_site_item') && !names.includes('delete_site_item') && !names.includes('site_by_id'),
      );
    });

    it('answers write failures with their codes beside the data, and writes nothing', async () => {
      const missing = await gql(t, 'mutation { update_articles_item(id: 999999, data: {title: "x"}) { id } }');
      assert.equal(missing.status, 200);
      assert.deepEqual(missing.body.data, { update_articles_item: null });
      assert.equal(missing.body.errors[0].extensions.code, 'FORBIDDEN');
      const tooLong = await gql(t, `mutation { create_tags_item(data: {name: "${'x'.repeat(300)}"}) { id } }`);
      assert.equal(tooLong.status, 200);
      assert.equal(tooLong.body.errors[0].extensions.code, 'VALUE_TOO_LONG');
      const nested = await gql(
        t,
        `mutation { create_articles_item(data: {title: "bad nested", author: {name: "${'n'.repeat(300)}"}}) { id } }`,
      );
      assert.equal(nested.body.errors[0].extensions.code, 'VALUE_TOO_LONG', JSON.stringify(nested.body));
      const required = await gql(t, 'mutation { create_articles_item(data: {status: "draft"}) { id } }');
      assert.equal(required.status, 400, 'a NOT NULL column without default is required by the input type');
      // Nested inputs require nothing (a nested row may be an existing one named by its key): the writer checks.
      const nestedRequired = await gql(
        t,
        'mutation { create_articles_item(data: {title: "bad nested", author: {email: "no-name@example.com"}}) { id } }',
      );
      assert.equal(nestedRequired.status, 200);
      assert.equal(
        nestedRequired.body.errors[0].extensions.code,
        'FAILED_VALIDATION',
        JSON.stringify(nestedRequired.body),
      );
      assert.deepEqual(await rest(t, '/items/articles', { filter: { title: { _eq: 'bad nested' } } }), []);
      const get = await t.request({
        method: 'GET',
        url: `/graphql?query=${encodeURIComponent('mutation { delete_tags_item(id: 1) { id } }')}`,
      });
      assert.equal(get.statusCode, 405);
      assert.equal(JSON.parse(get.body).errors[0].extensions.code, 'METHOD_NOT_ALLOWED');
      assert.deepEqual(JSON.parse(get.body).errors[0].extensions.allowed, ['POST']);
      assert.equal(get.headers.allow, 'POST');
      assert.deepEqual(await rest(t, '/items/tags/1', { fields: 'id' }), { id: 1 });
    });
  });
}
