/**
 * Every field type × every function and aggregate, over REST and GraphQL, on every database at once: a function or
 * aggregate in `fields`, `filter`, `sort`, `groupBy` and `aggregate` is either answered (200) or refused with a
 * coded 4xx, never a 5xx, and every database gives the same status and code. The rule of which function and which
 * aggregate applies to which type is the planner's (src/plan/type-rules.ts); before it, PostgreSQL answered 500 to
 * `max` of a uuid, `countDistinct` of a json field and `hour` of a date where SQLite and MariaDB answered 200.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import qs from 'qs';
import type { DbClient } from '../../src/config/config.js';
import { json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientLabel, knexFor, testClients } from '../helpers/test-db.js';

/** One field per creatable type (`f_<type>`), with the value its rows hold. */
function samples(client: DbClient): Record<string, unknown> {
  return {
    string: 'abc',
    text: 'some text',
    integer: 42,
    bigInteger: '9007199254740993',
    float: 1.5,
    decimal: '12.345',
    boolean: true,
    date: '2024-02-29',
    dateTime: '2024-02-29 13:45:07',
    timestamp: client === 'mysql' ? '2024-02-29 13:45:07.250' : '2024-02-29T13:45:07.250Z',
    time: '13:45:07',
    json: '{"a":[1,2],"b":null}',
    uuid: '8f14e45f-ceea-467f-a0e6-6f5f5e5d9c1a',
    binary: Buffer.from('hi'),
    csv: 'a,b',
    hash: '$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA',
  };
}
const TYPES = [...Object.keys(samples('sqlite3')), 'alias'];
const FUNCTIONS = ['year', 'month', 'week', 'day', 'weekday', 'hour', 'minute', 'second', 'count'];
const AGGREGATES = ['count', 'countDistinct', 'sum', 'sumDistinct', 'avg', 'avgDistinct', 'min', 'max'];

interface Answer {
  status: number;
  code: string | null;
}

/** The status and first error code of an answer; fails on a 5xx or on an error without a code. */
function answerOf(response: LightMyRequestResponse, where: string): Answer {
  const label = `${where} → ${response.statusCode} ${response.body.slice(0, 300)}`;
  assert.ok(response.statusCode < 500, label);
  const body = json<{ errors?: { extensions?: { code?: string } }[] }>(response);
  const codes = (body.errors ?? []).map((error) => error.extensions?.code);
  for (const code of codes) {
    assert.match(String(code), /^[A-Z_]+$/, label);
    assert.notEqual(code, 'INTERNAL_SERVER_ERROR', label);
  }
  if (response.statusCode >= 400) assert.ok(codes.length > 0, label);
  return { status: response.statusCode, code: codes[0] ?? null };
}

/** Every request of the sweep: a label and how to send it. */
function cases(): { label: string; send: (t: TestApp) => Promise<LightMyRequestResponse> }[] {
  const rest = (query: Record<string, unknown>) => ({
    label: `GET /items/typed?${decodeURIComponent(qs.stringify(query, { encodeValuesOnly: true })).replace(/\u0000/g, '%00')}`,
    send: (t: TestApp) =>
      t.request({ method: 'GET', url: `/items/typed?${qs.stringify(query, { encodeValuesOnly: true })}` }),
  });
  const graphql = (document: string) => ({
    label: `GraphQL ${document}`,
    send: (t: TestApp) => t.request({ method: 'POST', url: '/graphql', payload: { query: document } }),
  });
  const list = [];
  for (const type of TYPES) {
    const field = `f_${type}`;
    const names = [field, ...FUNCTIONS.map((fn) => `${fn}(${field})`), `json(${field}, a)`, `json(${field}, a\u0000)`];
    for (const name of names) {
      list.push(rest({ fields: `id,${name}` }));
      if (!name.startsWith('json(')) {
        list.push(rest({ filter: { [name]: { _eq: 1 } } }));
        list.push(rest({ filter: { [name]: { _null: true } } }));
        list.push(rest({ sort: `-${name}` }));
        list.push(rest({ aggregate: { count: '*' }, groupBy: name }));
        list.push(graphql(`{ typed(sort: ["${name}"]) { id } }`));
        list.push(graphql(`{ typed_aggregated(groupBy: ["${name}"]) { countAll group } }`));
      }
    }
    for (const fn of FUNCTIONS) {
      list.push(graphql(`{ typed { id ${field}_func { ${fn} } } }`));
      list.push(graphql(`{ typed(filter: { ${field}_func: { ${fn}: { _eq: 1 } } }) { id } }`));
    }
    for (const aggregate of AGGREGATES) {
      list.push(rest({ aggregate: { [aggregate]: field } }));
      list.push(rest({ aggregate: { [aggregate]: field }, groupBy: 'f_integer' }));
      list.push(graphql(`{ typed_aggregated { ${aggregate} { ${field} } } }`));
    }
  }
  return list;
}

describe(`type × function × aggregate sweep (${testClients().map(clientLabel).join(', ')})`, () => {
  const apps = new Map<DbClient, TestApp>();
  before(async () => {
    for (const client of testClients()) {
      const t = await startTestApp(client, { fixture: false });
      apps.set(client, t);
      const created = await t.request({
        method: 'POST',
        url: '/collections',
        payload: { collection: 'typed', schema: {} },
      });
      assert.equal(created.statusCode, 200, created.body);
      for (const type of TYPES) {
        const field =
          type === 'csv' ? { field: 'f_csv', type, meta: { special: ['cast-csv'] } } : { field: `f_${type}`, type };
        const res = await t.request({ method: 'POST', url: '/fields/typed', payload: field });
        assert.equal(res.statusCode, 200, `${type}: ${res.body}`);
      }
      const knex = knexFor(t.testDb);
      try {
        const row = Object.fromEntries(Object.entries(samples(client)).map(([type, value]) => [`f_${type}`, value]));
        await knex('typed').insert([row, row, Object.fromEntries(Object.keys(row).map((key) => [key, null]))]);
      } finally {
        await knex.destroy();
      }
    }
  });
  after(async () => {
    for (const t of apps.values()) await t.close();
  });

  it('answers every type, function and aggregate with a 200 or a coded 4xx, alike on every database', async () => {
    const all = cases();
    let refused = 0;
    // Every failing case is listed, not only the first.
    const problems: string[] = [];
    for (const { label, send } of all) {
      try {
        const answers: [DbClient, Answer][] = [];
        for (const [client, t] of apps)
          answers.push([client, answerOf(await send(t), `${clientLabel(client)}: ${label}`)]);
        const [[firstClient, first], ...others] = answers as [[DbClient, Answer], ...[DbClient, Answer][]];
        for (const [client, answer] of others)
          assert.deepEqual(answer, first, `${label}: ${clientLabel(client)} differs from ${clientLabel(firstClient)}`);
        if (first.status >= 400 || first.code) refused++;
      } catch (error) {
        problems.push((error as Error).message.split('\n')[0]!);
      }
    }
    assert.equal(
      problems.length,
      0,
      `${problems.length} of ${all.length} cases fail:\n${problems.slice(0, 40).join('\n')}`,
    );
    // Both kinds of answer occur: the sweep reaches the databases, and the rules refuse what does not apply.
    assert.ok(refused > 100 && refused < all.length - 100, `${refused} of ${all.length} refused`);
  });
});
