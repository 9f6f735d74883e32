/**
 * Existing schemas' own types. PostgreSQL: arrays read and written as JSON arrays, enums as strings whose values are
 * checked before SQL (and grouped), inet/cidr/macaddr/tsvector read as text (a host address without `/32`),
 * a GENERATED ALWAYS identity refused on write with a clear 400. MariaDB: enum and set values checked before SQL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { testClients } from '../helpers/test-db.js';
import { queryBuilder } from '../../src/db/connection.js';

const clients = testClients();

describe('PostgreSQL types', { skip: clients.includes('pg') ? false : 'TEST_PG_URL is not set' }, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp('pg', { fixture: false });
    const knex = queryBuilder(t.context.db);
    await knex.raw(`create type mood as enum ('happy', 'sad', 'calm')`);
    await knex.raw(`create table people (
      id serial primary key, name text not null, nicknames text[], scores integer[], mood mood,
      ip inet, net cidr, mac macaddr, doc tsvector)`);
    await knex.raw(`insert into people (name, nicknames, scores, mood, ip, net, mac, doc) values
      ('Ada', '{countess,ada}', '{1,2}', 'happy', '10.0.0.1', '10.0.0.0/24', '08:00:2b:01:02:03', to_tsvector('simple', 'analytical engine')),
      ('Grace', '{}', null, 'calm', '::1', null, null, null),
      ('Alan', null, '{3}', 'happy', '192.168.1.0/24', null, null, null)`);
    await knex.raw(`create table tickets (id integer generated always as identity primary key, title text)`);
    await t.reloadSchema();
  });
  after(async () => {
    await t?.close();
  });
  const send = (method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown) =>
    t.request({
      method,
      url,
      ...(body === undefined ? {} : { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });

  it('types the columns: arrays json, enums and network types string', async () => {
    const fields = json(await send('GET', '/fields/people')).data as {
      field: string;
      type: string;
      schema: Record<string, unknown>;
    }[];
    const types = Object.fromEntries(fields.map((f) => [f.field, f.type]));
    assert.deepEqual(types, {
      id: 'integer',
      name: 'text',
      nicknames: 'json',
      scores: 'json',
      mood: 'string',
      ip: 'string',
      net: 'string',
      mac: 'string',
      doc: 'string',
    });
    assert.equal(fields.find((f) => f.field === 'nicknames')!.schema.data_type, 'text[]');
    assert.ok(!('enum_values' in fields.find((f) => f.field === 'mood')!.schema));
  });

  it('reads arrays as JSON arrays and the other types as their text', async () => {
    const res = await send('GET', '/items/people?sort=id');
    assert.equal(res.statusCode, 200, res.body);
    const [ada, grace, alan] = json(res).data;
    assert.deepEqual(ada, {
      id: 1,
      name: 'Ada',
      nicknames: ['countess', 'ada'],
      scores: [1, 2],
      mood: 'happy',
      ip: '10.0.0.1',
      net: '10.0.0.0/24',
      mac: '08:00:2b:01:02:03',
      doc: "'analytical':1 'engine':2",
    });
    assert.deepEqual([grace.nicknames, grace.ip, alan.nicknames, alan.ip], [[], '::1', null, '192.168.1.0/24']);
  });

  it('writes JSON arrays into array columns and refuses other values', async () => {
    const created = await send('POST', '/items/people', {
      name: 'Edsger',
      nicknames: ['ewd', 'dijkstra'],
      scores: [7, 8],
      ip: '10.1.1.1',
    });
    assert.equal(created.statusCode, 200, created.body);
    assert.deepEqual(
      [json(created).data.nicknames, json(created).data.scores, json(created).data.ip],
      [['ewd', 'dijkstra'], [7, 8], '10.1.1.1'],
    );
    const patched = await send('PATCH', `/items/people/${json(created).data.id}`, { nicknames: [] });
    assert.deepEqual(json(patched).data.nicknames, []);
    for (const nicknames of ['ewd', { a: 1 }]) {
      const bad = await send('PATCH', `/items/people/${json(created).data.id}`, { nicknames });
      assert.equal(errorCode(bad), 'INVALID_PAYLOAD', bad.body);
    }
    const badInts = await send('PATCH', `/items/people/${json(created).data.id}`, { scores: ['x'] });
    assert.equal(errorCode(badInts), 'INVALID_PAYLOAD', badInts.body);
  });

  it('checks enum values before SQL, filters and groups by them', async () => {
    const bad = await send('POST', '/items/people', { name: 'Nobody', mood: 'angry' });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.equal(errorCode(bad), 'INVALID_PAYLOAD');
    assert.match(json(bad).errors[0].message, /"happy", "sad", "calm"/);
    assert.equal(
      Number((await queryBuilder(t.context.db)('people').where({ name: 'Nobody' }).count({ n: '*' }))[0]!.n),
      0,
    );
    const filtered = await send(
      'GET',
      '/items/people?fields=name&filter[mood][_eq]=happy&filter[ip][_starts_with]=10.&sort=id',
    );
    assert.deepEqual(json(filtered).data, [{ name: 'Ada' }], filtered.body);
    const grouped = await send('GET', '/items/people?aggregate[count]=*&groupBy[]=mood&sort=mood');
    assert.equal(grouped.statusCode, 200, grouped.body);
    assert.deepEqual(
      json(grouped).data.filter((g: { mood: string | null }) => g.mood !== null),
      [
        { mood: 'calm', count: 1 },
        { mood: 'happy', count: 2 },
      ],
      'enums sort by their text',
    );
  });

  it('refuses a value for a GENERATED ALWAYS identity with a clear 400', async () => {
    const res = await send('POST', '/items/tickets', { id: 5, title: 'x' });
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(errorCode(res), 'INVALID_PAYLOAD');
    assert.match(json(res).errors[0].message, /"id" .*generated by the database/);
    const ok = await send('POST', '/items/tickets', { title: 'y' });
    assert.equal(ok.statusCode, 200, ok.body);
  });
});

describe('MariaDB enum and set', { skip: clients.includes('mysql') ? false : 'TEST_MYSQL_URL is not set' }, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp('mysql', { fixture: false });
    await queryBuilder(t.context.db).raw(
      "create table posts (id int auto_increment primary key, state enum('draft','live') not null default 'draft', tags set('a','b','it''s'))",
    );
    await t.reloadSchema();
  });
  after(async () => {
    await t?.close();
  });
  const post = (body: unknown) =>
    t.request({
      method: 'POST',
      url: '/items/posts',
      payload: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    });

  it('accepts allowed values and refuses others before SQL with 400', async () => {
    const ok = await post({ state: 'live', tags: "a,it's" });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.deepEqual([json(ok).data.state, json(ok).data.tags], ['live', "a,it's"]);
    for (const body of [{ state: 'gone' }, { tags: 'a,c' }]) {
      const bad = await post(body);
      assert.equal(bad.statusCode, 400, bad.body);
      assert.equal(errorCode(bad), 'INVALID_PAYLOAD');
    }
    assert.equal(Number((await queryBuilder(t.context.db)('posts').count({ n: '*' }))[0]!.n), 1);
  });
});

for (const client of clients) {
  describe(`views served read-only (${client})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(client);
      const knex = queryBuilder(t.context.db);
      await knex.raw(`create view published_titles as select id, title from articles where status = 'published'`);
      if (client === 'pg')
        await knex.raw(
          `create materialized view rating_counts as select rating, count(*) as n from articles group by rating`,
        );
      await t.reloadSchema();
    });
    after(async () => {
      await t?.close();
    });
    const send = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown) =>
      t.request({
        method,
        url,
        ...(body === undefined
          ? {}
          : { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      });

    it('reads a view like a table', async () => {
      const res = await send('GET', '/items/published_titles?fields=title&sort=id&filter[id][_lte]=2');
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(json(res).data, [{ title: 'Hello World' }, { title: 'Second Post' }]);
      if (client === 'pg') {
        const counts = await send('GET', '/items/rating_counts?filter[rating][_eq]=5');
        assert.deepEqual(json(counts).data, [{ rating: 5, n: '1' }]);
      }
    });

    it('answers every write with 405 METHOD_NOT_ALLOWED', async () => {
      for (const [method, url, body] of [
        ['POST', '/items/published_titles', { title: 'x' }],
        ['PATCH', '/items/published_titles', { query: { filter: { id: { _eq: 1 } } }, data: { title: 'x' } }],
        ['DELETE', '/items/published_titles', { query: { filter: { id: { _eq: 1 } } } }],
        ['PATCH', '/items/published_titles/1', { title: 'x' }],
      ] as const) {
        const res = await send(method, url, body);
        assert.equal(res.statusCode, 405, `${method} ${url}: ${res.body}`);
        assert.equal(errorCode(res), 'METHOD_NOT_ALLOWED');
      }
      assert.equal(
        Number((await queryBuilder(t.context.db)('articles').where({ title: 'x' }).count({ n: '*' }))[0]!.n),
        0,
      );
    });
  });
}

describe('PostgreSQL DB_SEARCH_PATH', { skip: clients.includes('pg') ? false : 'TEST_PG_URL is not set' }, () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp('pg', { fixture: false, env: { DB_SEARCH_PATH: 'public,sales' } });
    const knex = queryBuilder(t.context.db);
    await knex.raw('create schema sales');
    await knex.raw('create table sales.orders (id serial primary key, total numeric(8,2))');
    await knex.raw('create table sales.hidden_twin (id serial primary key)');
    await knex.raw('create table public.hidden_twin (id serial primary key, note text)');
    await knex.raw('create schema other');
    await knex.raw('create table other.elsewhere (id serial primary key)');
    await knex.raw(`insert into sales.orders (total) values (12.5)`);
    await t.reloadSchema();
  });
  after(async () => {
    if (t)
      await queryBuilder(t.context.db)
        .raw('drop schema if exists sales cascade; drop schema if exists other cascade')
        .catch(() => {});
    await t?.close();
  });

  it('serves the tables of every schema in the path, the first schema winning a shared name', async () => {
    const orders = await t.request({ method: 'GET', url: '/items/orders' });
    assert.equal(orders.statusCode, 200, orders.body);
    assert.deepEqual(json(orders).data, [{ id: 1, total: '12.50' }]);
    const created = await t.request({ method: 'POST', url: '/items/orders', payload: { total: 3 } });
    assert.equal(created.statusCode, 200, created.body);
    const twin = await t.request({ method: 'GET', url: '/fields/hidden_twin' });
    assert.deepEqual(
      json(twin).data.map((f: { field: string }) => f.field),
      ['id', 'note'],
    );
    assert.equal((await t.request({ method: 'GET', url: '/items/elsewhere' })).statusCode, 403);
  });
});

for (const client of clients) {
  describe(`decimals (${client})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(client, { fixture: false });
    });
    after(async () => {
      await t?.close();
    });

    it('answers the decimal average, not a binary float’s neighbour', async () => {
      const created = await t.request({
        method: 'POST',
        url: '/collections',
        payload: {
          collection: 'prices',
          fields: [{ field: 'amount', type: 'decimal', schema: { numeric_precision: 10, numeric_scale: 2 } }],
        },
      });
      assert.equal(created.statusCode, 200, created.body);
      const items = await t.request({
        method: 'POST',
        url: '/items/prices',
        payload: [{ amount: '16.24' }, { amount: '16.25' }],
      });
      assert.equal(items.statusCode, 200, items.body);
      const res = await t.request({ method: 'GET', url: '/items/prices?aggregate[avg]=amount&aggregate[sum]=amount' });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(json(res), { data: [{ avg: { amount: 16.245 }, sum: { amount: '32.49' } }] });
    });

    it('rounds half away from zero at the scale and refuses what the precision cannot hold, as every database stores it', async () => {
      const created = await t.request({
        method: 'POST',
        url: '/collections',
        payload: {
          collection: 'amounts',
          fields: [{ field: 'amount', type: 'decimal', schema: { numeric_precision: 12, numeric_scale: 2 } }],
        },
      });
      assert.equal(created.statusCode, 200, created.body);
      // PostgreSQL's and MariaDB's own answers; SQLite stored 1e15, Inf, and 1.00 for 1.005 (a float rounds 1.00499…).
      const cases: [unknown, string][] = [
        ['1.005', '1.01'],
        [1.005, '1.01'],
        ['-1.005', '-1.01'],
        [2.675, '2.68'],
        ['0.005', '0.01'],
        ['1.0049999', '1.00'],
        ['-0.001', '0.00'],
        ['1e-999', '0.00'],
        ['1E2', '100.00'],
        ['9999999999.99', '9999999999.99'],
        ['1e15', 'VALUE_OUT_OF_RANGE'],
        [1e15, 'VALUE_OUT_OF_RANGE'],
        ['1e10', 'VALUE_OUT_OF_RANGE'],
        ['9999999999.995', 'VALUE_OUT_OF_RANGE'],
        ['-9999999999.995', 'VALUE_OUT_OF_RANGE'],
        ['1e999', 'VALUE_OUT_OF_RANGE'],
        ['-1e999', 'VALUE_OUT_OF_RANGE'],
        [1e308, 'VALUE_OUT_OF_RANGE'],
        ['Infinity', 'INVALID_PAYLOAD'],
        ['NaN', 'INVALID_PAYLOAD'],
      ];
      const first = json(await t.request({ method: 'POST', url: '/items/amounts', payload: { amount: 0 } })).data.id;
      for (const [value, expected] of cases) {
        for (const write of [
          () => t.request({ method: 'POST', url: '/items/amounts', payload: { amount: value } }),
          () => t.request({ method: 'PATCH', url: `/items/amounts/${first}`, payload: { amount: value } }),
        ]) {
          const res = await write();
          const label = `${JSON.stringify(value)}: ${res.body}`;
          if (/^[A-Z_]+$/.test(expected)) {
            assert.equal(res.statusCode, 400, label);
            assert.equal(errorCode(res), expected, label);
          } else {
            assert.equal(res.statusCode, 200, label);
            assert.equal(json(res).data.amount, expected, label);
            // What was stored, read again, not only what the write answered.
            const read = await t.request({ method: 'GET', url: `/items/amounts/${json(res).data.id}` });
            assert.equal(json(read).data.amount, expected, label);
          }
        }
      }
    });

    it('refuses a number no database holds in a decimal column without a declared precision', async () => {
      await queryBuilder(t.context.db).raw('create table loose (id integer primary key, amount numeric)');
      await t.reloadSchema();
      for (const amount of ['1e999', '-1e999', '1e309']) {
        const res = await t.request({ method: 'POST', url: '/items/loose', payload: { id: 1, amount } });
        assert.equal(res.statusCode, 400, res.body);
        assert.equal(errorCode(res), 'VALUE_OUT_OF_RANGE', res.body);
      }
      const res = await t.request({ method: 'POST', url: '/items/loose', payload: { id: 1, amount: '2.5' } });
      assert.equal(res.statusCode, 200, res.body);
    });
  });
}
