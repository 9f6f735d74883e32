/**
 * Item writes over HTTP on every database: POST / PATCH / DELETE in each body form, singletons, re-read responses,
 * missing items (403, nothing written), guards and content types.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { addWriteFixture } from '../helpers/write-fixture.js';
import { queryBuilder } from '../../src/db/connection.js';

type Method = 'POST' | 'PATCH' | 'DELETE' | 'GET' | 'PUT';

for (const client of testClients()) {
  describe(`item writes (${clientLabel(client)})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(client, { relations: true });
      await addWriteFixture(t);
    });
    after(async () => {
      await t?.close();
    });

    const send = (method: Method, url: string, body?: unknown, token?: string | null) =>
      t.request({
        method,
        url,
        token,
        ...(body === undefined
          ? {}
          : { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      });
    const table = (name: string) => queryBuilder(t.context.db)(name);
    const count = async (name: string, where: Record<string, unknown> = {}) =>
      Number((await table(name).where(where).count({ n: '*' }))[0]!.n);

    it('creates one item from an object and answers it as the query reads it', async () => {
      const res = await send('POST', '/items/tags?fields=id,name', { name: 'physics' });
      assert.equal(res.statusCode, 200, res.body);
      const body = json(res);
      assert.deepEqual(Object.keys(body), ['data']);
      assert.equal(body.data.name, 'physics');
      assert.equal(typeof body.data.id, 'number');
      assert.deepEqual(Object.keys(body.data), ['id', 'name']);
      assert.equal(await count('tags', { name: 'physics' }), 1);
    });

    it('creates many items from an array, answered in key order', async () => {
      const res = await send('POST', '/items/tags?fields=id,name', [
        { name: 'b-one' },
        { name: 'b-two' },
        { name: 'b-three' },
      ]);
      assert.equal(res.statusCode, 200, res.body);
      const rows = json(res).data as { id: number; name: string }[];
      assert.deepEqual(
        rows.map((r) => r.name),
        ['b-one', 'b-two', 'b-three'],
      );
      assert.ok(rows[0]!.id < rows[1]!.id && rows[1]!.id < rows[2]!.id);
      const empty = await send('POST', '/items/tags', []);
      assert.equal(empty.statusCode, 200);
      assert.deepEqual(json(empty), { data: [] });
    });

    it('writes every column type and reads it back in the wire format', async () => {
      const res = await send('POST', '/items/articles', {
        title: 'Typed',
        slug: 'typed',
        body: 'Text with "quotes" and ✓',
        status: 'published',
        rating: '4',
        views: '9007199254740993',
        price: 19.99,
        score: 1.25,
        published: 'true',
        publish_date: '2024-05-01',
        published_at: '2024-05-01 10:00:00',
        updated_at: '2024-05-01T10:00:00.250+02:00',
        read_time: '08:15',
        uid: '0b6a3c3e-3f4a-4d1c-9a4e-1c2b3d4e5f60',
        metadata: { nested: { list: [1, 'two', null] } },
        author: 2,
      });
      assert.equal(res.statusCode, 200, res.body);
      const { id, title_length, ...rest } = json(res).data;
      assert.equal(typeof id, 'number');
      assert.equal(title_length, 5);
      assert.deepEqual(rest, {
        title: 'Typed',
        slug: 'typed',
        body: 'Text with "quotes" and ✓',
        status: 'published',
        rating: 4,
        views: '9007199254740993',
        price: '19.99',
        score: 1.25,
        published: true,
        publish_date: '2024-05-01',
        published_at: '2024-05-01T10:00:00',
        updated_at: '2024-05-01T08:00:00.250Z',
        read_time: '08:15:00',
        uid: '0b6a3c3e-3f4a-4d1c-9a4e-1c2b3d4e5f60',
        metadata: { nested: { list: [1, 'two', null] } },
        author: 2,
        tags: [],
        comments: [],
      });
    });

    it('fills column defaults on create', async () => {
      const res = await send('POST', '/items/articles?fields=title,status,views,published', { title: 'Defaults' });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(json(res).data, { title: 'Defaults', status: 'draft', views: '0', published: false });
    });

    it('updates one item by key, leaving the other fields alone', async () => {
      const created = json(
        await send('POST', '/items/articles?fields=id', {
          title: 'Before',
          slug: 'before-upd',
          rating: 2,
          body: 'kept',
        }),
      ).data;
      const res = await send('PATCH', `/items/articles/${created.id}?fields=id,title,rating,body,slug`, {
        title: 'After',
        rating: null,
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(json(res).data, {
        id: created.id,
        title: 'After',
        rating: null,
        body: 'kept',
        slug: 'before-upd',
      });
      // The payload may repeat the key, but not change it.
      assert.equal(
        (await send('PATCH', `/items/articles/${created.id}?fields=id`, { id: created.id, rating: 1 })).statusCode,
        200,
      );
      const changed = await send('PATCH', `/items/articles/${created.id}`, { id: created.id + 1000 });
      assert.equal(changed.statusCode, 400);
      assert.equal(errorCode(changed), 'INVALID_PAYLOAD');
    });

    it('updates a batch: an array of items with keys', async () => {
      const [a, b] = json(await send('POST', '/items/tags?fields=id', [{ name: 'batch-a' }, { name: 'batch-b' }])).data;
      const res = await send('PATCH', '/items/tags?fields=id,name', [
        { id: b.id, name: 'batch-b2' },
        { id: a.id, name: 'batch-a2' },
      ]);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(json(res).data, [
        { id: a.id, name: 'batch-a2' },
        { id: b.id, name: 'batch-b2' },
      ]);
      const keyless = await send('PATCH', '/items/tags', [{ id: a.id, name: 'x' }, { name: 'no key' }]);
      assert.equal(keyless.statusCode, 400);
      assert.equal(errorCode(keyless), 'INVALID_PAYLOAD');
      assert.equal(await count('tags', { name: 'batch-a2' }), 1);
    });

    it('updates by keys and by query with the same data', async () => {
      const made = json(
        await send('POST', '/items/articles?fields=id', [
          { title: 'K1', rating: 1 },
          { title: 'K2', rating: 1 },
          { title: 'K3', rating: 1 },
        ]),
      ).data;
      const ids = made.map((r: { id: number }) => r.id);
      const byKeys = await send('PATCH', '/items/articles?fields=id,rating', {
        keys: [ids[0], ids[1]],
        data: { rating: 5 },
      });
      assert.equal(byKeys.statusCode, 200, byKeys.body);
      assert.deepEqual(json(byKeys).data, [
        { id: ids[0], rating: 5 },
        { id: ids[1], rating: 5 },
      ]);
      assert.equal((await table('articles').where({ id: ids[2] }).first()).rating, 1);

      const byQuery = await send('PATCH', '/items/articles?fields=id,status', {
        query: { filter: { title: { _in: ['K2', 'K3'] } } },
        data: { status: 'archived' },
      });
      assert.equal(byQuery.statusCode, 200, byQuery.body);
      assert.deepEqual(json(byQuery).data, [
        { id: ids[1], status: 'archived' },
        { id: ids[2], status: 'archived' },
      ]);
      const none = await send('PATCH', '/items/articles', {
        query: { filter: { title: { _eq: 'no such title' } } },
        data: { status: 'x' },
      });
      assert.deepEqual(json(none), { data: [] });
    });

    it('refuses malformed batch envelopes', async () => {
      for (const body of [
        {},
        { keys: [1], query: {}, data: {} },
        { keys: [1] },
        { keys: [1], data: 'x' },
        { keys: 'x', data: {} },
        { keys: [1], data: {}, other: 1 },
        5,
        'text',
      ]) {
        const res = await send('PATCH', '/items/articles', body);
        assert.equal(res.statusCode, 400, JSON.stringify(body));
        assert.equal(errorCode(res), 'INVALID_PAYLOAD');
      }
    });

    it('deletes by key, by an array of keys, by {keys} and by {query}', async () => {
      const ids = json(
        await send('POST', '/items/tags?fields=id', [
          { name: 'd1' },
          { name: 'd2' },
          { name: 'd3' },
          { name: 'd4' },
          { name: 'd5' },
          { name: 'd6' },
        ]),
      ).data.map((r: { id: number }) => r.id);
      const one = await send('DELETE', `/items/tags/${ids[0]}`);
      assert.equal(one.statusCode, 204);
      assert.equal(one.body, '');
      assert.equal((await send('DELETE', '/items/tags', [ids[1], ids[2]])).statusCode, 204);
      assert.equal((await send('DELETE', '/items/tags', { keys: [ids[3]] })).statusCode, 204);
      assert.equal(
        (await send('DELETE', '/items/tags', { query: { filter: { name: { _in: ['d5', 'd6'] } } } })).statusCode,
        204,
      );
      assert.equal((await count('tags', { name: 'd1' })) + (await count('tags', { name: 'd6' })), 0);
      assert.equal(Number((await table('tags').whereIn('id', ids).count({ n: '*' }))[0]!.n), 0);
      const bad = await send('DELETE', '/items/tags', { keys: [1], query: {} });
      assert.equal(errorCode(bad), 'INVALID_PAYLOAD');
      const missing = await send('DELETE', '/items/tags');
      assert.equal(missing.statusCode, 400);
      assert.equal(errorCode(missing), 'INVALID_PAYLOAD');
    });

    it('answers 403 for missing items and writes nothing', async () => {
      const [kept] = json(await send('POST', '/items/tags?fields=id,name', [{ name: 'survivor' }])).data;
      for (const [method, url, body] of [
        ['PATCH', '/items/tags/999999', { name: 'ghost' }],
        ['PATCH', '/items/tags/not-a-number', { name: 'ghost' }],
        [
          'PATCH',
          '/items/tags',
          [
            { id: kept.id, name: 'changed' },
            { id: 999999, name: 'ghost' },
          ],
        ],
        ['PATCH', '/items/tags', { keys: [kept.id, 999999], data: { name: 'changed' } }],
        ['DELETE', '/items/tags/999999', undefined],
        ['DELETE', '/items/tags', [kept.id, 999999]],
      ] as [Method, string, unknown][]) {
        const res = await send(method, url, body);
        assert.equal(res.statusCode, 403, `${method} ${url}: ${res.body}`);
        assert.equal(errorCode(res), 'FORBIDDEN');
      }
      assert.deepEqual(await table('tags').where({ id: kept.id }).first(), { id: kept.id, name: 'survivor' });
      assert.equal(await count('tags', { name: 'ghost' }), 0);
    });

    it('serves a singleton: GET before any row, PATCH creates then updates its one row, POST is 404', async () => {
      const empty = await send('GET', '/items/site');
      assert.equal(empty.statusCode, 200);
      assert.deepEqual(json(empty), { data: { id: null } });
      const created = await send('PATCH', '/items/site?fields=site_name,visits', { site_name: 'Strata', visits: 1 });
      assert.equal(created.statusCode, 200, created.body);
      assert.deepEqual(json(created), { data: { site_name: 'Strata', visits: 1 } });
      const updated = await send('PATCH', '/items/site', { visits: 2 });
      assert.equal(updated.statusCode, 200, updated.body);
      assert.equal(json(updated).data.site_name, 'Strata');
      assert.equal(json(updated).data.visits, 2);
      assert.equal(await count('site'), 1);
      const post = await send('POST', '/items/site', { site_name: 'second' });
      assert.equal(post.statusCode, 404);
      assert.equal(errorCode(post), 'ROUTE_NOT_FOUND');
      const byKey = await send('PATCH', `/items/site/${json(updated).data.id}`, { visits: 3 });
      assert.equal(byKey.statusCode, 404);
      assert.equal(errorCode(byKey), 'ROUTE_NOT_FOUND');
      assert.equal(await count('site'), 1);
    });

    it('answers 204 when the written item cannot be read back with the request query', async () => {
      const res = await send('POST', '/items/tags?fields=no_such_field', { name: 'unread' });
      assert.equal(res.statusCode, 204);
      assert.equal(await count('tags', { name: 'unread' }), 1);
    });

    it('refuses unknown and system collections, non-admins and unknown methods', async () => {
      assert.equal(errorCode(await send('POST', '/items/nope', { a: 1 })), 'FORBIDDEN');
      assert.equal(errorCode(await send('POST', '/items/nope', 'not an object')), 'FORBIDDEN');
      assert.equal(errorCode(await send('POST', '/items/service_users', { email: 'x@example.com' })), 'FORBIDDEN');
      assert.equal(errorCode(await send('DELETE', '/items/service_users/1')), 'FORBIDDEN');
      const anonymous = await send('POST', '/items/tags', { name: 'anonymous' }, null);
      assert.equal(anonymous.statusCode, 403);
      assert.equal(errorCode(await send('PATCH', '/items/tags/1', { name: 'anonymous' }, null)), 'FORBIDDEN');
      assert.equal(errorCode(await send('DELETE', '/items/tags/1', undefined, null)), 'FORBIDDEN');
      assert.equal(await count('tags', { name: 'anonymous' }), 0);
      const put = await send('PUT', '/items/tags/1', { name: 'put' });
      assert.equal(put.statusCode, 404);
      assert.equal(errorCode(put), 'ROUTE_NOT_FOUND');
    });

    it('takes JSON bodies only, whole and within MAX_PAYLOAD_SIZE', async () => {
      const raw = (payload: string, type?: string) =>
        t.request({ method: 'POST', url: '/items/tags', payload, headers: type ? { 'content-type': type } : {} });
      const text = await raw('{"name":"plain"}', 'text/plain');
      assert.equal(text.statusCode, 415);
      assert.equal(errorCode(text), 'UNSUPPORTED_MEDIA_TYPE');
      assert.equal((await raw('name=form', 'application/x-www-form-urlencoded')).statusCode, 415);
      const malformed = await raw('{"name":', 'application/json');
      assert.equal(malformed.statusCode, 400);
      assert.equal(errorCode(malformed), 'INVALID_PAYLOAD');
      const large = await raw(JSON.stringify({ name: 'x'.repeat(1024 * 1024) }), 'application/json');
      assert.equal(large.statusCode, 400);
      assert.equal(errorCode(large), 'INVALID_PAYLOAD');
      assert.match(json(large).errors[0].message, /request entity too large/);
      const none = await t.request({ method: 'POST', url: '/items/tags' });
      assert.equal(none.statusCode, 400);
      assert.equal(errorCode(none), 'INVALID_PAYLOAD');
      assert.match(json(none).errors[0].message, /Payload in body is required/);
      assert.equal(errorCode(await raw('', 'application/json')), 'INVALID_PAYLOAD');
      assert.equal(errorCode(await raw('null', 'application/json')), 'INVALID_PAYLOAD');
      assert.equal(errorCode(await raw('[1, 2]', 'application/json')), 'INVALID_PAYLOAD');
      assert.equal((await raw('{"name":"charset"}', 'application/json; charset=utf-8')).statusCode, 200);
      assert.equal(await count('tags', { name: 'plain' }), 0);
    });

    it('marks the write stages in Server-Timing', async () => {
      const res = await send('POST', '/items/tags?fields=id', { name: 'timed' });
      assert.match(
        String(res.headers['server-timing']),
        /^auth;dur=[\d.]+, parse;dur=[\d.]+, plan;dur=[\d.]+, write;dur=[\d.]+, read;dur=[\d.]+, total;dur=[\d.]+$/,
      );
    });
  });

  describe(`write limits (${clientLabel(client)})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(client, { relations: true, env: { MAX_BATCH_MUTATION: '3', MAX_PAYLOAD_SIZE: '2kb' } });
    });
    after(async () => {
      await t?.close();
    });

    const send = (method: Method, url: string, body: unknown) =>
      t.request({ method, url, payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    const count = async (name: string) => Number((await queryBuilder(t.context.db)(name).count({ n: '*' }))[0]!.n);

    it('counts every row a write touches, nested ones included, against MAX_BATCH_MUTATION', async () => {
      const before = { tags: await count('tags'), authors: await count('authors'), articles: await count('articles') };
      assert.equal(
        (await send('POST', '/items/tags', [{ name: 'l1' }, { name: 'l2' }, { name: 'l3' }])).statusCode,
        200,
      );
      const four = await send('POST', '/items/tags', [{ name: 'm1' }, { name: 'm2' }, { name: 'm3' }, { name: 'm4' }]);
      assert.equal(four.statusCode, 400);
      assert.equal(errorCode(four), 'INVALID_PAYLOAD');
      assert.match(json(four).errors[0].message, /Exceeded max batch mutation limit of 3/);
      const nested = await send('POST', '/items/authors', {
        name: 'Limits',
        articles: [{ title: 'a' }, { title: 'b' }, { title: 'c' }],
      });
      assert.equal(errorCode(nested), 'INVALID_PAYLOAD');
      const deletes = await send('DELETE', '/items/tags', [1, 2, 3, 4]);
      assert.equal(errorCode(deletes), 'INVALID_PAYLOAD');
      assert.deepEqual(
        { tags: await count('tags'), authors: await count('authors'), articles: await count('articles') },
        { ...before, tags: before.tags + 3 },
      );
    });

    it('counts rows unlinked by an o2m array too', async () => {
      // Author 2 has articles 3 and 4; naming neither unlinks both: 1 update + 2 unlinked + the new article = 4 rows.
      const res = await send('PATCH', '/items/authors/2', { name: 'Alan', articles: [{ title: 'only one' }] });
      assert.equal(res.statusCode, 400, res.body);
      assert.match(json(res).errors[0].message, /Exceeded max batch mutation limit of 3/);
      const articles = await queryBuilder(t.context.db)('articles').where({ author: 2 }).orderBy('id').pluck('id');
      assert.deepEqual(articles.map(Number), [3, 4]);
    });

    it('refuses bodies over MAX_PAYLOAD_SIZE', async () => {
      const res = await send('POST', '/items/tags', { name: 'x'.repeat(3000) });
      assert.equal(res.statusCode, 400);
      assert.equal(errorCode(res), 'INVALID_PAYLOAD');
    });
  });
}
