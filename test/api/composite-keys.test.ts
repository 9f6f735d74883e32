/**
 * Tables whose primary key has several columns, on every database: every write (one, batch, {keys}, {query},
 * nested) touches exactly the rows it names and answers them; reads by key take the key string (`1,3`, commas and
 * percent signs inside a value as %2C / %25) or a key object; forms not supported are refused with a coded error.
 * Before composite keys were addressed whole, the first key column was taken as the key and these writes changed
 * every row sharing it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { gql, gqlData } from '../graphql/helpers.js';
import { queryBuilder } from '../../src/db/connection.js';

type Method = 'POST' | 'PATCH' | 'DELETE' | 'GET' | 'SEARCH';

for (const client of testClients()) {
  describe(`composite primary keys (${clientLabel(client)})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(client, { relations: true });
      const knex = queryBuilder(t.context.db);
      await knex.schema.createTable('article_tags', (table) => {
        table.integer('article_id').notNullable().references('id').inTable('articles').onDelete('CASCADE');
        table.integer('tag_id').notNullable().references('id').inTable('tags').onDelete('CASCADE');
        table.integer('weight');
        table.primary(['article_id', 'tag_id']);
      });
      await knex.schema.createTable('codes', (table) => {
        table.string('region', 20).notNullable();
        table.string('code', 20).notNullable();
        table.string('label', 50);
        table.primary(['region', 'code']);
      });
      await knex('service_fields').insert({
        collection: 'articles',
        field: 'weights',
        special: 'o2m',
        interface: 'list-o2m',
      });
      await knex('service_relations').insert({
        many_collection: 'article_tags',
        many_field: 'article_id',
        one_collection: 'articles',
        one_field: 'weights',
        one_deselect_action: 'delete',
      });
      await t.reloadSchema();
    });
    after(async () => {
      await t?.close();
    });

    const send = (method: Method, url: string, body?: unknown) =>
      t.request({
        method,
        url,
        ...(body === undefined
          ? {}
          : { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      });
    const rows = async (table = 'article_tags') =>
      (
        await queryBuilder(t.context.db)(table)
          .select('*')
          .orderBy(table === 'codes' ? ['region', 'code'] : ['article_id', 'tag_id'])
      ).map((r) => ({ ...r }));
    const reset = async (weights: [number, number, number | null][]) => {
      await queryBuilder(t.context.db)('article_tags').delete();
      if (weights.length)
        await queryBuilder(t.context.db)('article_tags').insert(
          weights.map(([article_id, tag_id, weight]) => ({ article_id, tag_id, weight })),
        );
    };
    const weights = async () =>
      (await rows()).map((r) => [Number(r.article_id), Number(r.tag_id), r.weight === null ? null : Number(r.weight)]);

    it('updates by query only the rows the query selects, and answers those', async () => {
      await reset([
        [1, 1, 0],
        [1, 2, 0],
        [2, 2, 0],
      ]);
      const res = await send('PATCH', '/items/article_tags', {
        query: { filter: { article_id: { _eq: 1 }, tag_id: { _eq: 2 } } },
        data: { weight: 5 },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(json(res).data, [{ article_id: 1, tag_id: 2, weight: 5 }]);
      assert.deepEqual(await weights(), [
        [1, 1, 0],
        [1, 2, 5],
        [2, 2, 0],
      ]);
    });

    it('deletes by query only the rows the query selects', async () => {
      await reset([
        [1, 1, 0],
        [1, 2, 0],
        [2, 2, 0],
      ]);
      const res = await send('DELETE', '/items/article_tags', { query: { filter: { tag_id: { _eq: 1 } } } });
      assert.equal(res.statusCode, 204, res.body);
      assert.deepEqual(await weights(), [
        [1, 2, 0],
        [2, 2, 0],
      ]);
    });

    it('creates rows and answers each with its own key', async () => {
      await reset([[1, 1, 0]]);
      const one = await send('POST', '/items/article_tags', { article_id: 1, tag_id: 2, weight: 7 });
      assert.equal(one.statusCode, 200, one.body);
      assert.deepEqual(json(one).data, { article_id: 1, tag_id: 2, weight: 7 });
      const many = await send('POST', '/items/article_tags', [
        { article_id: 2, tag_id: 1, weight: 1 },
        { article_id: 1, tag_id: 3, weight: 2 },
      ]);
      assert.equal(many.statusCode, 200, many.body);
      assert.deepEqual(json(many).data, [
        { article_id: 1, tag_id: 3, weight: 2 },
        { article_id: 2, tag_id: 1, weight: 1 },
      ]);
      const duplicate = await send('POST', '/items/article_tags', { article_id: 1, tag_id: 2, weight: 9 });
      assert.equal(errorCode(duplicate), 'RECORD_NOT_UNIQUE', duplicate.body);
      const partial = await send('POST', '/items/article_tags', { article_id: 1, weight: 9 });
      assert.equal(partial.statusCode, 400, partial.body);
      assert.equal(errorCode(partial), 'FAILED_VALIDATION');
      assert.deepEqual(await weights(), [
        [1, 1, 0],
        [1, 2, 7],
        [1, 3, 2],
        [2, 1, 1],
      ]);
    });

    it('reads one item by its key string or not at all by part of it', async () => {
      await reset([
        [1, 1, 0],
        [1, 2, 4],
      ]);
      const res = await send('GET', '/items/article_tags/1,2');
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(json(res).data, { article_id: 1, tag_id: 2, weight: 4 });
      for (const key of ['1', '1,2,3', '1,x', '1,9'])
        assert.equal((await send('GET', `/items/article_tags/${key}`)).statusCode, 403, key);
      const list = await send('GET', '/items/article_tags?fields=tag_id');
      assert.deepEqual(json(list).data, [{ tag_id: 1 }, { tag_id: 2 }], 'listed in key order');
      const search = await send('SEARCH', '/items/article_tags', {
        keys: ['1,2', { article_id: 1, tag_id: 1 }, '7,7'],
        query: { fields: ['tag_id'] },
      });
      assert.deepEqual(json(search).data, [{ tag_id: 1 }, { tag_id: 2 }]);
    });

    it('updates and deletes one item by key, touching no other row', async () => {
      await reset([
        [1, 1, 0],
        [1, 2, 0],
        [2, 1, 0],
      ]);
      const res = await send('PATCH', '/items/article_tags/1,2', { weight: 3 });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(json(res).data, { article_id: 1, tag_id: 2, weight: 3 });
      assert.deepEqual(await weights(), [
        [1, 1, 0],
        [1, 2, 3],
        [2, 1, 0],
      ]);
      const moved = await send('PATCH', '/items/article_tags/1,2', { tag_id: 3 });
      assert.equal(errorCode(moved), 'INVALID_PAYLOAD', moved.body);
      const same = await send('PATCH', '/items/article_tags/1,2', { article_id: 1, tag_id: 2, weight: 4 });
      assert.equal(same.statusCode, 200, same.body);
      assert.equal((await send('PATCH', '/items/article_tags/1', { weight: 1 })).statusCode, 403);
      assert.equal((await send('PATCH', '/items/article_tags/3,3', { weight: 1 })).statusCode, 403);
      assert.equal((await send('DELETE', '/items/article_tags/1,1')).statusCode, 204);
      assert.equal((await send('DELETE', '/items/article_tags/1')).statusCode, 403);
      assert.deepEqual(await weights(), [
        [1, 2, 4],
        [2, 1, 0],
      ]);
    });

    it('updates a batch, {keys} (strings or objects) and deletes {keys} by every key column', async () => {
      await reset([
        [1, 1, 0],
        [1, 2, 0],
        [2, 1, 0],
        [2, 2, 0],
      ]);
      const batch = await send('PATCH', '/items/article_tags', [
        { article_id: 1, tag_id: 2, weight: 1 },
        { article_id: 2, tag_id: 1, weight: 2 },
      ]);
      assert.equal(batch.statusCode, 200, batch.body);
      assert.deepEqual(
        json(batch).data.map((r: { weight: number }) => r.weight),
        [1, 2],
      );
      const half = await send('PATCH', '/items/article_tags', [{ article_id: 1, weight: 1 }]);
      assert.equal(errorCode(half), 'INVALID_PAYLOAD', half.body);
      const keyed = await send('PATCH', '/items/article_tags', {
        keys: ['2,2', { article_id: 1, tag_id: 1 }],
        data: { weight: 9 },
      });
      assert.equal(keyed.statusCode, 200, keyed.body);
      assert.deepEqual(await weights(), [
        [1, 1, 9],
        [1, 2, 1],
        [2, 1, 2],
        [2, 2, 9],
      ]);
      assert.equal(
        (await send('DELETE', '/items/article_tags', { keys: ['1,2', { article_id: 2, tag_id: 2 }] })).statusCode,
        204,
      );
      assert.equal((await send('DELETE', '/items/article_tags', ['2,1'])).statusCode, 204);
      assert.deepEqual(await weights(), [[1, 1, 9]]);
      assert.equal((await send('DELETE', '/items/article_tags', ['1'])).statusCode, 403);
    });

    it('takes commas and percent signs inside key values escaped as %2C and %25', async () => {
      await queryBuilder(t.context.db)('codes').insert([
        { region: 'a,b', code: '10%', label: 'odd' },
        { region: 'a', code: 'b,10%', label: 'other' },
      ]);
      const res = await send('GET', `/items/codes/${encodeURIComponent('a%2Cb,10%25')}`);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(json(res).data.label, 'odd');
      const patched = await send('PATCH', '/items/codes', { keys: ['a,b%2C10%25'], data: { label: 'changed' } });
      assert.equal(patched.statusCode, 200, patched.body);
      assert.deepEqual(
        (await rows('codes')).map((r) => [r.region, r.code, r.label]),
        [
          ['a', 'b,10%', 'changed'],
          ['a,b', '10%', 'odd'],
        ],
      );
      // The revision holds the row it changed, found by every key column (a comma inside a part included).
      const revisions = await send(
        'GET',
        `/revisions?filter[collection][_eq]=codes&filter[item][_eq]=${encodeURIComponent('a,b%2C10%25')}`,
      );
      assert.deepEqual(
        json(revisions).data.map((r: { data: unknown }) => r.data),
        [{ region: 'a', code: 'b,10%', label: 'changed' }],
      );
    });

    it('writes nested composite-key rows under their parent, keyed by the parent and the named column', async () => {
      await reset([
        [1, 1, 0],
        [1, 2, 0],
        [2, 1, 0],
      ]);
      const res = await send('PATCH', '/items/articles/1?fields=id,weights.tag_id,weights.weight', {
        weights: [
          { tag_id: 1, weight: 6 },
          { tag_id: 3, weight: 8 },
        ],
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(json(res).data.weights, [
        { tag_id: 1, weight: 6 },
        { tag_id: 3, weight: 8 },
      ]);
      // (1,1) updated, (1,3) created, (1,2) no longer named: deleted (the relation's deselect action); (2,1) untouched.
      assert.deepEqual(await weights(), [
        [1, 1, 6],
        [1, 3, 8],
        [2, 1, 0],
      ]);
      const detailed = await send('PATCH', '/items/articles/1', {
        weights: {
          create: [{ tag_id: 2, weight: 1 }],
          update: [{ tag_id: 3, weight: 9 }],
          delete: [{ article_id: 1, tag_id: 1 }],
        },
      });
      assert.equal(detailed.statusCode, 200, detailed.body);
      assert.deepEqual(await weights(), [
        [1, 2, 1],
        [1, 3, 9],
        [2, 1, 0],
      ]);
      const bare = await send('PATCH', '/items/articles/1', { weights: ['1,2'] });
      assert.equal(errorCode(bare), 'INVALID_PAYLOAD', bare.body);
      const created = await send('POST', '/items/articles?fields=weights.tag_id', {
        title: 'Composite',
        slug: 'composite',
        author: 1,
        weights: [{ tag_id: 1, weight: 2 }],
      });
      assert.equal(created.statusCode, 200, created.body);
      assert.deepEqual(json(created).data.weights, [{ tag_id: 1 }]);
    });

    it('GraphQL: _by_id takes the key string, and mutations touch exactly the rows they name', async () => {
      await reset([
        [1, 1, 0],
        [1, 2, 0],
        [2, 2, 0],
      ]);
      const one = await gqlData(t, '{ article_tags_by_id(id: "1,2") { article_id { id } tag_id { id } weight } }');
      assert.deepEqual(one.article_tags_by_id, { article_id: { id: '1' }, tag_id: { id: '2' }, weight: 0 });
      const partId = await gql(t, '{ article_tags_by_id(id: "1") { weight } }');
      assert.equal(partId.body.errors?.[0]?.extensions?.code, 'FORBIDDEN', JSON.stringify(partId.body));
      const updated = await gqlData(
        t,
        'mutation { update_article_tags_item(id: "1,2", data: { weight: 4 }) { tag_id { id } weight } }',
      );
      assert.deepEqual(updated.update_article_tags_item, { tag_id: { id: '2' }, weight: 4 });
      const many = await gqlData(
        t,
        'mutation { update_article_tags_items(ids: ["2,2"], data: { weight: 5 }) { weight } }',
      );
      assert.deepEqual(many.update_article_tags_items, [{ weight: 5 }]);
      await gqlData(t, 'mutation { update_article_tags_items(ids: ["1,1"], data: { weight: 6 }) { weight } }');
      assert.deepEqual(await weights(), [
        [1, 1, 6],
        [1, 2, 4],
        [2, 2, 5],
      ]);
      await gqlData(t, 'mutation { delete_article_tags_item(id: "1,2") { id } }');
      assert.deepEqual(await weights(), [
        [1, 1, 6],
        [2, 2, 5],
      ]);
      const partial = await gql(t, 'mutation { delete_article_tags_items(ids: ["2"]) { ids } }');
      assert.equal(partial.body.errors?.[0]?.extensions?.code, 'FORBIDDEN', JSON.stringify(partial.body));
      assert.deepEqual(await weights(), [
        [1, 1, 6],
        [2, 2, 5],
      ]);
    });

    it('refuses relations to a composite-key collection with a coded error', async () => {
      const res = await send('POST', '/fields/articles', { field: 'pick', type: 'string', schema: {} });
      assert.equal(res.statusCode, 200, res.body);
      const relation = await send('POST', '/relations', {
        collection: 'articles',
        field: 'pick',
        related_collection: 'codes',
      });
      assert.equal(errorCode(relation), 'INVALID_PAYLOAD', relation.body);
      assert.match(json(relation).errors[0].message, /composite primary key/);
    });
  });
}
