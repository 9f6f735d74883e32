/**
 * Flat item reads over HTTP, on every database this run can reach: the same requests must give the same bodies.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import qs from 'qs';
import { clientLabel, nullsSortLargest, testClients } from '../helpers/test-db.js';
import { errorCode, json, onEveryWorker, startTestApp, type TestApp } from '../helpers/test-app.js';

const ARTICLE_1 = {
  id: 1,
  title: 'Hello World',
  slug: 'hello-world',
  body: 'First post body',
  status: 'published',
  rating: 5,
  views: '9007199254740993',
  price: '12.50',
  score: 4.5,
  published: true,
  publish_date: '2024-01-15',
  published_at: '2024-01-15T10:30:00',
  updated_at: '2024-01-15T10:30:00.123Z',
  read_time: '01:30:00',
  uid: '8f14e45f-ceea-467f-a0e6-6f5f5e5d9c1a',
  metadata: { lang: 'en', tags: ['a', 'b'], n: 1 },
  title_length: 11,
  author: 1,
};

const ARTICLE_3 = {
  id: 3,
  title: 'Draft Ideas',
  slug: 'draft-ideas',
  body: null,
  status: 'draft',
  rating: null,
  views: '0',
  price: null,
  score: null,
  published: false,
  publish_date: null,
  published_at: null,
  updated_at: null,
  read_time: null,
  uid: null,
  metadata: null,
  title_length: 11,
  author: 2,
};

function ids(body: { data: { id: number }[] }): number[] {
  return body.data.map((row) => row.id);
}

for (const client of testClients()) {
  describe(`flat item reads (${clientLabel(client)})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(client);
    });
    after(async () => {
      await t?.close();
    });

    const get = (url: string, token?: string | null) => t.request({ method: 'GET', url, token });
    const idsOf = async (query: Record<string, unknown>) => {
      const res = await get(`/items/articles?${qs.stringify({ fields: 'id', sort: 'id', ...query })}`);
      assert.equal(res.statusCode, 200, res.body);
      return ids(json(res));
    };

    it('lists every field of every row in the wire format, keys in column order', async () => {
      const res = await get('/items/articles?sort=id');
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /application\/json/);
      assert.match(
        String(res.headers['server-timing']),
        /^auth;dur=[\d.]+, parse;dur=[\d.]+, plan;dur=[\d.]+, sql;dur=[\d.]+, db;dur=[\d.]+, respond;dur=[\d.]+, total;dur=[\d.]+$/,
      );
      const body = json(res);
      assert.deepEqual(Object.keys(body), ['data']);
      assert.equal(body.data.length, 6);
      assert.deepEqual(body.data[0], ARTICLE_1);
      assert.deepEqual(Object.keys(body.data[0]), Object.keys(ARTICLE_1));
      assert.deepEqual(body.data[2], ARTICLE_3);
      assert.equal(body.data[1].score, 2);
      assert.equal(body.data[1].updated_at, '2024-02-01T08:00:00.000Z');
      assert.equal(body.data[1].price, '0.99');
      assert.deepEqual(body.data[3].metadata, [1, 2, 3]);
      assert.equal(body.data[3].updated_at, '2024-03-01T12:00:00.500Z');
      assert.deepEqual(body.data[4].metadata, { nested: { deep: true }, none: null });
      assert.equal(body.data[5].title, 'Unicode ✓ — 日本語');
      assert.equal(body.data[5].body, 'Body with "quotes", 50% and a \\ backslash');
      assert.equal(body.data[5].price, '-3.10');
      assert.equal(body.data[5].metadata, 'just a string');
      assert.equal(body.data[5].title_length, 15);
      assert.equal(body.data[5].author, null);
    });

    it('reads other tables, booleans and dates included', async () => {
      const body = json(await get('/items/authors?sort=id'));
      assert.deepEqual(body.data[2], {
        id: 3,
        name: 'Grace Hopper',
        email: 'grace@example.com',
        bio: 'Rear admiral',
        active: false,
        joined: '1906-12-09',
      });
    });

    it('selects explicit fields in the order asked, as a comma list or an array', async () => {
      const res = json(await get('/items/articles?fields=title,id&sort=id&limit=1'));
      assert.deepEqual(res.data, [{ title: 'Hello World', id: 1 }]);
      assert.deepEqual(Object.keys(res.data[0]), ['title', 'id']);
      const arr = json(await get('/items/articles?fields[]=id&fields[]=status&sort=-id&limit=2'));
      assert.deepEqual(arr.data, [
        { id: 6, status: 'published' },
        { id: 5, status: 'archived' },
      ]);
    });

    it('reads one item by key, and answers 403 for missing keys and keys of the wrong type', async () => {
      const one = json(await get('/items/articles/1'));
      assert.deepEqual(one, { data: ARTICLE_1 });
      const some = json(await get('/items/articles/4?fields=id,title'));
      assert.deepEqual(some, { data: { id: 4, title: 'Machines Thinking' } });
      for (const url of ['/items/articles/999', '/items/articles/abc', '/items/articles/1.5']) {
        const res = await get(url);
        assert.equal(res.statusCode, 403, url);
        assert.equal(errorCode(res), 'FORBIDDEN');
      }
    });

    it('filters with every operator family', async () => {
      assert.deepEqual(await idsOf({ filter: { status: { _eq: 'draft' } } }), [3]);
      assert.deepEqual(await idsOf({ filter: { status: 'draft' } }), [3]);
      assert.deepEqual(await idsOf({ filter: { status: { _neq: 'published' } } }), [3, 5]);
      assert.deepEqual(await idsOf({ filter: { status: { _ieq: 'DRAFT' } } }), [3]);
      assert.deepEqual(await idsOf({ filter: { status: { _nieq: 'PUBLISHED' } } }), [3, 5]);
      assert.deepEqual(await idsOf({ filter: { rating: { _lt: 3 } } }), [5, 6]);
      assert.deepEqual(await idsOf({ filter: { rating: { _lte: 3 } } }), [2, 5, 6]);
      assert.deepEqual(await idsOf({ filter: { rating: { _gt: '3' } } }), [1, 4]);
      assert.deepEqual(await idsOf({ filter: { rating: { _gte: 4 } } }), [1, 4]);
      assert.deepEqual(await idsOf({ filter: { id: { _in: [2, 4, 99] } } }), [2, 4]);
      assert.deepEqual(await idsOf({ filter: { id: { _in: '2,4' } } }), [2, 4]);
      assert.deepEqual(await idsOf({ filter: { id: { _nin: [1, 2, 3] } } }), [4, 5, 6]);
      assert.deepEqual(await idsOf({ filter: { rating: { _null: true } } }), [3]);
      assert.deepEqual(await idsOf({ filter: { author: { _nnull: true } } }), [1, 2, 3, 4, 5]);
      assert.deepEqual(await idsOf({ filter: { title: { _contains: 'Post' } } }), [2]);
      assert.deepEqual(await idsOf({ filter: { title: { _icontains: 'post' } } }), [2]);
      assert.deepEqual(await idsOf({ filter: { title: { _ncontains: 'o' } } }), [3, 4]);
      assert.deepEqual(await idsOf({ filter: { title: { _nicontains: 'I' } } }), [1, 2]);
      assert.deepEqual(await idsOf({ filter: { body: { _contains: '50%' } } }), [6]);
      assert.deepEqual(await idsOf({ filter: { body: { _contains: '\\' } } }), [6]);
      assert.deepEqual(await idsOf({ filter: { slug: { _starts_with: 'se' } } }), [2]);
      assert.deepEqual(await idsOf({ filter: { title: { _istarts_with: 'hello' } } }), [1]);
      assert.deepEqual(await idsOf({ filter: { slug: { _nstarts_with: 'h' } } }), [2, 3, 4, 5, 6]);
      assert.deepEqual(await idsOf({ filter: { title: { _nistarts_with: 'm' } } }), [1, 2, 3, 5, 6]);
      assert.deepEqual(await idsOf({ filter: { slug: { _ends_with: 'ideas' } } }), [3]);
      assert.deepEqual(await idsOf({ filter: { title: { _iends_with: 'WORLD' } } }), [1]);
      assert.deepEqual(await idsOf({ filter: { slug: { _nends_with: 's' } } }), [1, 2, 6]);
      assert.deepEqual(await idsOf({ filter: { title: { _niends_with: 'S' } } }), [1, 2, 4, 6]);
      assert.deepEqual(await idsOf({ filter: { rating: { _between: [2, 4] } } }), [2, 4, 5]);
      assert.deepEqual(await idsOf({ filter: { rating: { _nbetween: '2,4' } } }), [1, 6]);
      assert.deepEqual(await idsOf({ filter: { body: { _empty: true } } }), [3]);
      assert.deepEqual(await idsOf({ filter: { body: { _nempty: true } } }), [1, 2, 4, 5, 6]);
      assert.deepEqual(await idsOf({ filter: { published: { _eq: 'false' } } }), [3, 5]);
      assert.deepEqual(await idsOf({ filter: { published: { _eq: true } } }), [1, 2, 4, 6]);
      assert.deepEqual(await idsOf({ filter: { price: { _gte: '15' } } }), [4, 5]);
      assert.deepEqual(await idsOf({ filter: { views: { _gt: '9007199254740992' } } }), [1]);
      assert.deepEqual(await idsOf({ filter: { score: { _lt: 0 } } }), [6]);
      assert.deepEqual(await idsOf({ filter: { uid: { _eq: '45c48cce-2e2d-4fbd-a8f1-3c4d5e6f7a8b' } } }), [4]);
    });

    it('filters on dates, times and timestamps', async () => {
      assert.deepEqual(await idsOf({ filter: { publish_date: { _gte: '2024-02-01' } } }), [2, 4, 6]);
      assert.deepEqual(await idsOf({ filter: { published_at: { _lt: '2024-01-15T10:30:01' } } }), [1, 5]);
      assert.deepEqual(await idsOf({ filter: { published_at: { _eq: '2024-02-01T08:00:00' } } }), [2]);
      assert.deepEqual(await idsOf({ filter: { updated_at: { _gt: '2024-01-31T00:00:00Z' } } }), [2, 4, 6]);
      assert.deepEqual(
        await idsOf({ filter: { updated_at: { _between: ['2024-02-01T08:00:00.000Z', '2024-03-01T12:00:00.500Z'] } } }),
        [2, 4],
      );
      assert.deepEqual(await idsOf({ filter: { read_time: { _gte: '12:00:00' } } }), [5, 6]);
      assert.deepEqual(await idsOf({ filter: { updated_at: { _lt: '$NOW' } } }), [1, 2, 4, 5, 6]);
      assert.deepEqual(await idsOf({ filter: { updated_at: { _gt: '$NOW(-100 years)' } } }), [1, 2, 4, 5, 6]);
      assert.deepEqual(await idsOf({ filter: { updated_at: { _gt: '$NOW(+1 day)' } } }), []);
    });

    it('combines filters with _and / _or, in bracket syntax and as JSON strings', async () => {
      const filter = {
        _or: [{ status: { _eq: 'draft' } }, { _and: [{ rating: { _gte: 4 } }, { score: { _gt: 5 } }] }],
      };
      assert.deepEqual(await idsOf({ filter }), [3, 4]);
      const res = await get(`/items/articles?fields=id&sort=id&filter=${encodeURIComponent(JSON.stringify(filter))}`);
      assert.deepEqual(ids(json(res)), [3, 4]);
      const brackets = await get('/items/articles?fields=id&sort=id&filter[status][_eq]=archived');
      assert.deepEqual(ids(json(brackets)), [5]);
    });

    it('resolves $CURRENT_USER to the caller', async () => {
      const res = await get(
        `/items/articles?fields=id&filter=${encodeURIComponent(JSON.stringify({ uid: { _eq: '$CURRENT_USER' } }))}`,
      );
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(json(res).data, []);
    });

    it('sorts by several fields, descending with -', async () => {
      // NULLs sort where the database puts them (article 3 has no rating).
      assert.deepEqual(
        await idsOf({ sort: '-rating,id' }),
        nullsSortLargest(client) ? [3, 1, 4, 2, 5, 6] : [1, 4, 2, 5, 6, 3],
      );
      assert.deepEqual(
        await idsOf({ sort: 'rating,id' }),
        nullsSortLargest(client) ? [6, 5, 2, 4, 1, 3] : [3, 6, 5, 2, 4, 1],
      );
      assert.deepEqual(await idsOf({ sort: ['status', '-id'] }), [5, 3, 6, 4, 2, 1]);
      assert.deepEqual(await idsOf({ sort: 'status,-id' }), [5, 3, 6, 4, 2, 1]);
      assert.deepEqual(await idsOf({ sort: '-title_length,id' }), [4, 6, 1, 2, 3, 5]);
    });

    it('limits, offsets and pages', async () => {
      assert.deepEqual(await idsOf({ limit: 2 }), [1, 2]);
      assert.deepEqual(await idsOf({ limit: 2, offset: 2 }), [3, 4]);
      assert.deepEqual(await idsOf({ limit: 2, page: 3 }), [5, 6]);
      assert.deepEqual(await idsOf({ limit: -1 }), [1, 2, 3, 4, 5, 6]);
      assert.deepEqual(await idsOf({ limit: 0 }), []);
    });

    it('applies QUERY_LIMIT_DEFAULT when no limit is given', async () => {
      const small = await startTestApp(client, { env: { QUERY_LIMIT_DEFAULT: '4' } });
      try {
        const res = await small.request({ method: 'GET', url: '/items/articles?fields=id&sort=id' });
        assert.deepEqual(ids(json(res)), [1, 2, 3, 4]);
      } finally {
        await small.close();
      }
    });

    it('searches text fields case-insensitively and numeric fields by equality', async () => {
      assert.deepEqual(await idsOf({ search: 'MACHINES' }), [4]);
      assert.deepEqual(await idsOf({ search: 'post' }), [1, 2]);
      assert.deepEqual(await idsOf({ search: '42' }), [5]);
      assert.deepEqual(await idsOf({ search: 'nothing-matches-this' }), []);
    });

    it('returns total_count and filter_count on request', async () => {
      const res = json(
        await get('/items/articles?fields=id&filter[status][_eq]=published&limit=1&meta=total_count,filter_count'),
      );
      assert.deepEqual(res.meta, { total_count: 6, filter_count: 4 });
      assert.equal(res.data.length, 1);
      const star = json(await get('/items/articles?fields=id&search=post&meta=*'));
      assert.deepEqual(star.meta, { total_count: 6, filter_count: 2 });
      const one = json(await get('/items/tags?meta=filter_count'));
      assert.deepEqual(one.meta, { filter_count: 4 });
    });

    it('SEARCH takes the query from the body, and keys', async () => {
      const res = await t.request({
        method: 'SEARCH',
        url: '/items/articles?filter[status][_eq]=draft',
        payload: { query: { fields: ['id'], filter: { rating: { _gte: 4 } }, sort: ['-id'] } },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(json(res).data, [{ id: 4 }, { id: 1 }]);
      const keys = await t.request({
        method: 'SEARCH',
        url: '/items/articles',
        payload: { keys: [5, 2], query: { fields: ['id'], sort: ['id'] } },
      });
      assert.deepEqual(json(keys).data, [{ id: 2 }, { id: 5 }]);
      const bad = await t.request({
        method: 'SEARCH',
        url: '/items/articles',
        payload: '{"query": {',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(bad.statusCode, 400);
      assert.equal(errorCode(bad), 'INVALID_PAYLOAD');
      const notObject = await t.request({ method: 'SEARCH', url: '/items/articles', payload: { query: 'x' } });
      assert.equal(errorCode(notObject), 'INVALID_PAYLOAD');
    });

    it('answers 403 FORBIDDEN for unknown and system collections and unknown fields', async () => {
      for (const url of [
        '/items/nope',
        '/items/service_users',
        '/items/articles?fields=id,nope',
        '/items/articles?filter[nope][_eq]=1',
        '/items/articles?sort=nope',
      ]) {
        const res = await get(url);
        assert.equal(res.statusCode, 403, url);
        assert.equal(errorCode(res), 'FORBIDDEN', url);
      }
      const reason = json(await get('/items/nope')).errors[0];
      assert.match(reason.message, /collection "nope"/);
      const field = json(await get('/items/articles?fields=nope')).errors[0];
      assert.match(field.message, /field "nope"/);
    });

    it('answers 400 INVALID_QUERY naming the parameter for malformed queries', async () => {
      for (const [url, word] of [
        ['/items/articles?limit=abc', 'limit'],
        ['/items/articles?limit=-5', 'limit'],
        ['/items/articles?offset=-1', 'offset'],
        ['/items/articles?filter={bad json', 'filter'],
        ['/items/articles?filter[id][_bogus]=1', '_bogus'],
        ['/items/articles?filter[id][_in]=', '_in'],
        ['/items/articles?meta=everything', 'meta'],
        ['/items/articles?filter[rating][_eq]=high', 'rating'],
        ['/items/articles?filter[publish_date][_eq]=not-a-date', 'publish_date'],
      ] as const) {
        const res = await get(url);
        assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
        assert.equal(errorCode(res), 'INVALID_QUERY', url);
        assert.match(res.body, new RegExp(word), url);
      }
    });

    it('needs a valid token: none → 403, bad JWT → 403 INVALID_TOKEN, unknown static token → 401', async () => {
      const anonymous = await get('/items/articles', null);
      assert.equal(anonymous.statusCode, 403);
      assert.equal(errorCode(anonymous), 'FORBIDDEN');
      const tampered = await get('/items/articles', 'eyJhbGciOiJIUzI1NiJ9.eyJpZCI6IngiLCJpc3MiOiJzdHJhdGEifQ.bad');
      assert.equal(tampered.statusCode, 403);
      assert.equal(errorCode(tampered), 'INVALID_TOKEN');
      const unknown = await get('/items/articles', 'not-a-known-token');
      assert.equal(unknown.statusCode, 401);
      assert.equal(errorCode(unknown), 'INVALID_CREDENTIALS');
      const both = await t.request({ method: 'GET', url: '/items/articles?access_token=x' });
      assert.equal(both.statusCode, 400);
      assert.equal(errorCode(both), 'INVALID_PAYLOAD');
    });

    it('accepts the token as ?access_token= too', async () => {
      const res = await t.request({
        method: 'GET',
        url: `/items/tags?fields=name&sort=id&limit=1&access_token=strata-test-admin-token`,
        token: null,
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(json(res).data, [{ name: 'science' }]);
    });

    it('runs exactly one SQL statement per read', async () => {
      const statements: string[] = [];
      const stop = onEveryWorker(t, ({ db }) => db.onQuery((sql) => statements.push(sql)));
      try {
        await get('/items/articles?fields=id,title&filter[status][_eq]=published&meta=*');
        assert.equal(statements.length, 1, statements.join('\n'));
        statements.length = 0;
        await get('/items/articles/2');
        assert.equal(statements.length, 1);
      } finally {
        stop();
      }
    });

    it('answers unknown routes with 404 ROUTE_NOT_FOUND', async () => {
      for (const [method, url] of [
        ['GET', '/nope'],
        ['PUT', '/items/articles'],
        ['GET', '/items'],
      ] as const) {
        const res = await t.request({ method, url });
        assert.equal(res.statusCode, 404, url);
        assert.equal(errorCode(res), 'ROUTE_NOT_FOUND');
      }
    });
  });
}
