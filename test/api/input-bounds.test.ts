/**
 * Input that used to reach the database and answer 500: integers beyond range, NUL characters (in values and in
 * every path segment), lists longer than a driver's parameter limit, nesting deep enough to overflow the stack,
 * hundreds of sort fields. Each is a coded 400 (or a correct answer) on every database.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientLabel, testClients } from '../helpers/test-db.js';

const HUGE = '100000000000000000000000';

/** Every route with a path parameter (`/items/:collection/:pk`, `/admin/*`) and method, from Fastify's route tree. */
function parameterRoutes(t: TestApp): { method: string; url: string }[] {
  const routes: { method: string; url: string }[] = [];
  const prefixes: string[] = [];
  for (const line of t.app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([\s│]*)[├└]── (\S+) \(([A-Z, ]+)\)$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    const parent = depth === 0 ? '' : prefixes[depth - 1]!;
    const url = `${parent.replace(/\/$/, '')}/${match[2]!.replace(/^\//, '')}`;
    prefixes[depth] = url;
    if (!/[:*]/.test(url)) continue;
    for (const method of match[3]!.split(', ')) if (method !== 'HEAD') routes.push({ method, url });
  }
  return routes;
}
const LONG = Array.from({ length: 70_000 }, (_, i) => i + 1);

for (const client of testClients()) {
  describe(`input bounds (${clientLabel(client)})`, () => {
    let t: TestApp;
    const get = (url: string) => t.request({ method: 'GET', url });
    const search = (body: unknown) => t.request({ method: 'SEARCH', url: '/items/articles', payload: body as object });
    const raw = (method: 'POST' | 'SEARCH', url: string, body: string) =>
      t.request({ method, url, payload: body, headers: { 'content-type': 'application/json' } });

    before(async () => {
      t = await startTestApp(client, { relations: true });
    });
    after(async () => {
      await t?.close();
    });

    it('refuses integers beyond the safe range in limit, offset, page and deep _limit/_offset/_page', async () => {
      for (const url of [
        `/items/articles?limit=${HUGE}`,
        `/items/articles?offset=${HUGE}`,
        `/items/articles?page=${HUGE}`,
        `/items/authors?fields=id,articles.id&deep[articles][_limit]=${HUGE}`,
        `/items/authors?fields=id,articles.id&deep[articles][_offset]=${HUGE}`,
        `/items/authors?fields=id,articles.id&deep[articles][_page]=${HUGE}`,
        // Each within range, their product is not.
        `/items/articles?limit=9007199254740991&page=3`,
      ]) {
        const response = await get(url);
        assert.equal(response.statusCode, 400, `${url}: ${response.body}`);
        assert.equal(errorCode(response), 'INVALID_QUERY');
      }
      assert.equal(json(await get('/items/articles?limit=9007199254740991&fields=id')).data.length, 6);
    });

    it('refuses filter values beyond an integer column, also in count() and _none filters', async () => {
      for (const url of [
        `/items/articles?filter[id][_eq]=${HUGE}`,
        '/items/articles?filter[rating][_gt]=99999999999',
        `/items/articles?filter[views][_lt]=${HUGE}`,
        `/items/authors?filter[count(articles)][_gt]=${HUGE}`,
        `/items/authors?filter[articles][_none][id][_eq]=${HUGE}`,
      ]) {
        const response = await get(url);
        assert.equal(response.statusCode, 400, `${url}: ${response.body}`);
        assert.equal(errorCode(response), 'INVALID_QUERY');
      }
      assert.equal(json(await get('/items/articles?filter[rating][_lte]=2147483647&fields=id')).data.length, 5);
      assert.equal(json(await get('/items/articles?filter[views][_gt]=9007199254740992&fields=id')).data.length, 1);
      // A key out of range is a key that does not exist.
      assert.equal(errorCode(await get(`/items/articles/${HUGE}`)), 'FORBIDDEN');
    });

    it('refuses NUL characters alike: in search, filter values, alias keys and write payloads', async () => {
      for (const url of [
        '/items/articles?search=a%00b',
        '/items/articles?filter[title][_eq]=a%00b',
        '/items/articles?alias[a%00b]=title',
        '/items/articles?deep[author][_search]=%00',
      ]) {
        const response = await get(url);
        assert.equal(response.statusCode, 400, `${url}: ${response.body}`);
        assert.equal(errorCode(response), 'INVALID_QUERY');
      }
      for (const body of ['{"name":"a\\u0000b"}', '{"na\\u0000me":"x"}', '{"name":"x","meta":{"deep":["\\u0000"]}}']) {
        const response = await raw('POST', '/items/tags', body);
        assert.equal(response.statusCode, 400, `${body}: ${response.body}`);
        assert.equal(errorCode(response), 'INVALID_PAYLOAD');
      }
      // A key holding NUL is a key that does not exist (PostgreSQL refused it with a 500).
      const codes = await t.request({
        method: 'POST',
        url: '/collections',
        payload: {
          collection: 'codes',
          schema: {},
          fields: [{ field: 'code', type: 'string', schema: { is_primary_key: true, max_length: 20 } }],
        },
      });
      assert.equal(codes.statusCode, 200, codes.body);
      assert.equal(errorCode(await get('/items/codes/a%00b')), 'INVALID_QUERY');
      // An escaped backslash followed by "u0000" is text, not NUL.
      const text = await raw('POST', '/items/tags', '{"name":"C:\\\\u0000"}');
      assert.equal(json(text).data.name, 'C:\\u0000', text.body);
    });

    it('refuses NUL in every path segment of every route alike, whatever the method, body or caller', async () => {
      let checked = 0;
      for (const { method, url } of parameterRoutes(t)) {
        const names = url.split('/').filter((part) => part.startsWith(':') || part === '*');
        for (const name of names) {
          const path = url
            .split('/')
            .map((part) =>
              part === name ? 'a%00b' : part === ':collection' ? 'articles' : part.startsWith(':') ? '1' : part,
            )
            .join('/');
          for (const token of [undefined, null]) {
            const response = await t.request({
              method: method as 'GET',
              url: path,
              ...(method === 'GET' || method === 'DELETE' ? {} : { payload: { title: 'x', unknown: [1] } }),
              token,
            });
            const label = `${method} ${path}${token === null ? ' (public)' : ''}: ${response.body}`;
            assert.equal(response.statusCode, 400, label);
            assert.equal(errorCode(response), 'INVALID_QUERY', label);
            assert.match(json(response).errors[0].message, /NUL/, label);
            checked++;
          }
        }
      }
      // Items, fields, collections, relations, the system collections, imports, specs, docs and the admin app.
      assert.ok(checked > 80, `${checked} checked`);
    });

    it('binds _in, _nin and keys lists longer than any driver parameter limit', async () => {
      const inList = json(await search({ query: { filter: { id: { _in: LONG } }, fields: ['id'], limit: -1 } }));
      assert.deepEqual(inList.data.map((r: { id: number }) => r.id).sort(), [1, 2, 3, 4, 5, 6]);
      const ninList = json(await search({ query: { filter: { id: { _nin: LONG.slice(1) } }, fields: ['id'] } }));
      assert.deepEqual(ninList.data, [{ id: 1 }]);
      const texts = json(
        await search({ query: { filter: { title: { _in: [...LONG.map(String), 'Compilers'] } }, fields: ['id'] } }),
      );
      assert.deepEqual(texts.data, [{ id: 5 }]);
      const keys = json(await search({ keys: LONG, query: { fields: ['id'], limit: 2 } }));
      assert.deepEqual(keys.data, [{ id: 1 }, { id: 2 }]);
    });

    it('bounds filter nesting, deep nesting and JSON body nesting before recursing', async () => {
      const nestedFilter = '{"_and":['.repeat(5000) + '{"id":{"_eq":1}}' + ']}'.repeat(5000);
      const viaQuery = await get(`/items/articles?filter=${encodeURIComponent(nestedFilter)}`);
      assert.equal(errorCode(viaQuery), 'INVALID_QUERY', viaQuery.body);
      const fifty = '{"_and":['.repeat(49) + '{"id":{"_eq":1}}' + ']}'.repeat(49);
      assert.deepEqual(json(await get(`/items/articles?fields=id&filter=${encodeURIComponent(fifty)}`)).data, [
        { id: 1 },
      ]);
      const deep = await get(
        `/items/articles?deep=${encodeURIComponent('{"a":'.repeat(5000) + '{}' + '}'.repeat(5000))}`,
      );
      assert.equal(errorCode(deep), 'INVALID_QUERY');
      const body = await raw('SEARCH', '/items/articles', `{"query":{"filter":${nestedFilter}}}`);
      assert.equal(errorCode(body), 'INVALID_PAYLOAD');
      const value = await raw(
        'POST',
        '/items/articles',
        `{"title":"x","metadata":${'['.repeat(20_000)}1${']'.repeat(20_000)}}`,
      );
      assert.equal(errorCode(value), 'INVALID_PAYLOAD');
      // Brackets inside strings are text.
      const brackets = await raw(
        'POST',
        '/items/articles?fields=metadata',
        `{"title":"x","metadata":{"text":"${'['.repeat(500)}"}}`,
      );
      assert.equal(json(brackets).data.metadata.text.length, 500, brackets.body);
    });

    it('bounds sort to 100 fields and search to 10,000 characters', async () => {
      const sort = (n: number) => Array.from({ length: n }, (_, i) => (i % 2 ? 'title' : '-body')).join(',');
      assert.equal((await get(`/items/articles?fields=id&sort=${sort(100)}`)).statusCode, 200);
      assert.equal(errorCode(await get(`/items/articles?fields=id&sort=${sort(500)}`)), 'INVALID_QUERY');
      assert.equal((await get(`/items/articles?fields=id&search=${'a'.repeat(10_000)}`)).statusCode, 200);
      assert.equal(errorCode(await get(`/items/articles?fields=id&search=${'a'.repeat(10_001)}`)), 'INVALID_QUERY');
    });
  });
}
