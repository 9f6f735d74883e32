/**
 * Outside names that would reach a prototype, everywhere else than imports and diffs, on every database: URL query
 * keys (qs) and JSON-text parameters, SEARCH bodies, JSON bodies, GraphQL variables and aliases, WebSocket
 * messages, collection and field names, and names an existing database already has (a table or column called
 * `__proto__` or `constructor`). Each is a coded 400 (INVALID_QUERY for queries, INVALID_PAYLOAD for bodies) or
 * plain data, the shared prototypes stay untouched, and names Object.prototype has (`toString`) are no longer
 * dropped from queries without a word.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { queryBuilder } from '../../src/db/connection.js';
import { assertPristine, cleanPrototypes } from '../helpers/prototypes.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { errorCode, json, listenOnLoopback, startTestApp, type TestApp } from '../helpers/test-app.js';
import { openSocket } from '../helpers/ws-client.js';

const enc = (value: unknown) => encodeURIComponent(JSON.stringify(value));

for (const client of testClients()) {
  describe(`prototype keys (${clientLabel(client)})`, () => {
    let t: TestApp;
    let base: string;
    before(async () => {
      t = await startTestApp(client, {
        relations: true,
        env: { WEBSOCKETS_ENABLED: 'true', WEBSOCKETS_HEARTBEAT_ENABLED: 'false' },
      });
      base = await listenOnLoopback(t);
    });
    after(async () => {
      await t?.close();
    });
    afterEach(() => void cleanPrototypes());

    const get = (url: string, token?: string | null) => t.request({ method: 'GET', url, token });

    it('URL query keys naming __proto__, constructor or prototype: 400 INVALID_QUERY on every route', async () => {
      const urls = [
        '/items/articles?filter[__proto__][polluted]=yes',
        '/items/articles?filter[constructor][prototype][polluted]=yes',
        '/items/articles?filter[title][prototype]=1',
        '/items/articles?deep[__proto__][_limit]=1',
        '/items/articles?deep[author][_filter][constructor][_eq]=1',
        '/items/articles?alias[__proto__]=title',
        '/items/articles?aggregate[__proto__]=id',
        '/items/articles?%5F%5Fproto%5F%5F[polluted]=yes',
        `/items/articles?filter=${enc({ title: { constructor: { prototype: 1 } } })}`,
        `/items/articles?deep=${enc({ constructor: { _limit: 1 } })}`,
        `/items/articles?alias=${enc({ prototype: 'title' })}`,
        `/items/articles?aggregate=${enc({ constructor: ['id'] })}`,
        '/users?filter[__proto__][x]=1',
        '/server/info?__proto__[polluted]=yes',
        '/schema/snapshot?constructor[prototype][polluted]=yes',
      ];
      // JSON text with `__proto__` as a key (an object literal would set the prototype instead).
      urls.push(`/items/articles?alias=${encodeURIComponent('{"__proto__":"title"}')}`);
      urls.push(`/items/articles?deep=${encodeURIComponent('{"__proto__":{"_limit":1}}')}`);
      urls.push(`/items/articles?filter=${encodeURIComponent('{"__proto__":{"polluted":{"_eq":1}}}')}`);
      for (const url of urls) {
        for (const token of [undefined, null]) {
          const res = await get(url, token);
          assertPristine(url);
          assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
          assert.equal(errorCode(res), 'INVALID_QUERY', url);
          assert.match(json(res).errors[0].message, /reserved name/, url);
        }
      }
      assert.equal((await get('/items/articles?limit=1')).statusCode, 200);
    });

    it('names Object.prototype has (toString, valueOf) are no longer dropped from a query without a word', async () => {
      // qs dropped `filter[toString]...` whole: the read answered every row as if unfiltered.
      for (const url of [
        '/items/articles?filter[toString][_eq]=1',
        '/items/articles?filter[valueOf][_null]=true',
        // Asked for by itself: a path through an unknown field (`hasOwnProperty.id`) is ignored, as Directus does.
        '/items/articles?deep[hasOwnProperty][_limit]=1&fields=id,hasOwnProperty',
      ]) {
        const res = await get(url);
        assert.equal(res.statusCode, 403, `${url}: ${res.body}`);
        assert.match(json(res).errors[0].message, /toString|valueOf|hasOwnProperty/);
      }
      const filtered = json(await get('/items/articles?filter[title][_eq]=toString')).data;
      assert.deepEqual(filtered, []);
    });

    it('SEARCH bodies and WebSocket queries: the names as keys are 400 INVALID_QUERY', async () => {
      for (const query of [
        { filter: { constructor: { _eq: 1 } } },
        { deep: { author: { _filter: { prototype: { _eq: 1 } } } } },
        { alias: { constructor: 'title' } },
        { filter: JSON.stringify({ title: { prototype: 1 } }) },
      ]) {
        const res = await t.request({ method: 'SEARCH', url: '/items/articles', payload: { query } });
        assertPristine(JSON.stringify(query));
        assert.equal(errorCode(res), 'INVALID_QUERY', `${JSON.stringify(query)}: ${res.body}`);
      }
      const socket = await openSocket(base, 'strata-test-admin-token');
      try {
        socket.send({
          type: 'subscribe',
          collection: 'articles',
          query: { filter: { constructor: { _eq: 1 } } },
          uid: 's',
        });
        const answer = await socket.next();
        assert.equal(answer.status, 'error', JSON.stringify(answer));
        assert.equal(answer.error.code, 'INVALID_QUERY');
      } finally {
        socket.close();
      }
    });

    it('JSON bodies holding __proto__ or constructor.prototype: 400 naming the key, not "Invalid JSON"', async () => {
      const cases: [string, string, string][] = [
        ['POST', '/items/articles', '{"title":"x","__proto__":{"polluted":"yes"}}'],
        ['PATCH', '/items/articles/1', '{"metadata":{"a":{"constructor":{"prototype":{"polluted":"yes"}}}}}'],
        ['PATCH', '/settings', '{"__proto__":{"polluted":"yes"}}'],
        ['PATCH', '/fields/articles/title', '{"meta":{"options":{"__proto__":{"polluted":"yes"}}}}'],
        ['POST', '/graphql', '{"query":"{ articles { id } }","variables":{"__proto__":{"polluted":"yes"}}}'],
      ];
      for (const [method, url, payload] of cases) {
        const res = await t.request({
          method: method as 'POST',
          url,
          payload,
          headers: { 'content-type': 'application/json' },
        });
        assertPristine(payload);
        assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
        assert.equal(errorCode(res), 'INVALID_PAYLOAD');
        assert.match(json(res).errors[0].message, /"[\w.]*(__proto__|constructor)" is a reserved name/, res.body);
      }
      // Malformed JSON is still just that.
      const bad = await t.request({
        method: 'POST',
        url: '/items/articles',
        payload: '{"title":',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(json(bad).errors[0].message, 'Invalid payload. Invalid JSON in request body.');
    });

    it('the names as plain data (a JSON field, a value) are stored and read back as they are', async () => {
      const metadata = { constructor: 'data', prototype: { toString: 'also data' } };
      const created = await t.request({
        method: 'POST',
        url: '/items/articles?fields=id,metadata',
        payload: { title: 'Plain', slug: 'plain-keys', metadata },
      });
      assert.equal(created.statusCode, 200, created.body);
      assert.deepEqual(json(created).data.metadata, metadata);
      const gql = await t.request({
        method: 'POST',
        url: '/graphql',
        payload: { query: '{ articles(filter: {slug: {_eq: "plain-keys"}}) { metadata } }' },
      });
      assert.deepEqual(json(gql).data.articles[0].metadata, metadata);
      assertPristine('plain data');
    });

    it('GraphQL: GET variables holding __proto__ are 400; an alias or fragment named __proto__ is a validation error', async () => {
      const query = 'query($f: articles_filter) { articles(filter: $f) { id } }';
      const res = await get(
        `/graphql?query=${encodeURIComponent(query)}&variables=${encodeURIComponent('{"f":{"__proto__":{"polluted":"yes"}}}')}`,
      );
      assertPristine('GET variables');
      assert.equal(errorCode(res), 'INVALID_PAYLOAD', res.body);
      for (const document of [
        '{ articles(limit: 1) { __proto__: title } }',
        '{ articles(limit: 1) { id author { __proto__: name } } }',
        '{ articles(limit: 1) { ...__proto__ } } fragment __proto__ on articles { id }',
      ]) {
        const answer = await t.request({ method: 'POST', url: '/graphql', payload: { query: document } });
        assertPristine(document);
        assert.equal(answer.statusCode, 400, `${document}: ${answer.body}`);
        assert.equal(errorCode(answer), 'GRAPHQL_VALIDATION');
      }
      // Other names are plain response keys.
      const plain = await t.request({
        method: 'POST',
        url: '/graphql',
        payload: { query: '{ articles(limit: 1, sort: ["id"]) { constructor: title prototype: id } }' },
      });
      assert.deepEqual(json(plain).data.articles, [{ constructor: 'Hello World', prototype: '1' }]);
    });

    it('WebSocket messages holding __proto__ are INVALID_PAYLOAD', async () => {
      const socket = await openSocket(base, 'strata-test-admin-token');
      try {
        socket.send(
          JSON.parse(
            '{"type":"items","collection":"articles","action":"create","uid":"w","data":{"title":"x","__proto__":{"polluted":"yes"}}}',
          ),
        );
        const answer = await socket.next();
        assertPristine('socket');
        assert.equal(answer.status, 'error', JSON.stringify(answer));
        assert.equal(answer.error.code, 'INVALID_PAYLOAD');
        assert.equal(answer.uid, 'w');
      } finally {
        socket.close();
      }
    });

    it('collections and fields can not be named __proto__, constructor or prototype', async () => {
      for (const name of ['__proto__', 'constructor', 'prototype']) {
        const field = await t.request({
          method: 'POST',
          url: '/fields/articles',
          payload: { field: name, type: 'string' },
        });
        assert.equal(errorCode(field), 'INVALID_PAYLOAD', field.body);
        assert.match(json(field).errors[0].message, /is reserved/);
        const collection = await t.request({
          method: 'POST',
          url: '/collections',
          payload: {
            collection: name,
            schema: {},
            fields: [{ field: 'id', type: 'integer', schema: { is_primary_key: true } }],
          },
        });
        assert.equal(errorCode(collection), 'INVALID_PAYLOAD', collection.body);
        assertPristine(name);
      }
    });

    it('a database that already has a table and columns named so: their names stay plain keys', async () => {
      const knex = queryBuilder(t.context.db);
      await knex.schema.createTable('__proto__', (table) => {
        table.increments('id');
        table.string('constructor', 50);
      });
      await knex.schema.createTable('legacy', (table) => {
        table.increments('id');
        table.string('__proto__', 50);
        table.string('constructor', 50);
      });
      // Rows with a `__proto__` key: parsed JSON (an object literal would set the prototype instead).
      await knex('legacy').insert(
        JSON.parse(
          '[{"__proto__":"a","constructor":"x"},{"__proto__":"a","constructor":"y"},{"__proto__":"b","constructor":"z"}]',
        ),
      );
      await t.context.schemaChanged();
      try {
        const access = json(await get('/permissions/me')).data;
        assert.ok(Object.hasOwn(access, '__proto__'), 'the __proto__ collection is listed');
        assert.ok(Object.hasOwn(access, 'legacy'));
        const oas = json(await get('/server/specs/oas'));
        const properties = oas.components.schemas.ItemsLegacy.properties;
        assert.deepEqual(Object.keys(properties).sort(), ['__proto__', 'constructor', 'id']);
        const rows = json(await get('/items/legacy?sort=id&fields=__proto__,constructor')).data;
        assert.deepEqual(rows[0], JSON.parse('{"__proto__":"a","constructor":"x"}'));
        const grouped = await t.request({
          method: 'POST',
          url: '/graphql',
          payload: { query: '{ legacy_aggregated(groupBy: ["__proto__"]) { group count { id } } }' },
        });
        const groups = json(grouped).data.legacy_aggregated.map((g: { group: object }) => g.group);
        assert.ok(
          groups.every((g: object) => Object.hasOwn(g, '__proto__')),
          grouped.body,
        );
        assertPristine('existing names');
      } finally {
        await knex.schema.dropTable('legacy');
        await knex.schema.dropTable('__proto__');
        await t.context.schemaChanged();
      }
    });
  });
}
