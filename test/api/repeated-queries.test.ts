/**
 * A repeated query string is parsed once and its Query IR kept (http/query-string.ts): what is kept is the parse
 * only, so the same string still answers each caller by their own permissions, follows a permission change, and an
 * unknown token fails every time, kept caller or not.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { queryBuilder } from '../../src/db/connection.js';
import { queryStringParser } from '../../src/http/query-string.js';
import { createPolicy, createUserWithPolicies } from '../helpers/access-fixture.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientLabel, testClients } from '../helpers/test-db.js';

const URL = '/items/articles?fields=id,status&sort=id&limit=100';

type Row = { id: number; status: string };

describe('query string parser', () => {
  const parse = queryStringParser({ depth: 10, arrayLimit: 100 });

  it('gives a repeated string the same frozen object, and parses token-bearing strings each time', () => {
    const first = parse('filter[status][_eq]=published&limit=2');
    assert.deepEqual(first, { filter: { status: { _eq: 'published' } }, limit: '2' });
    assert.equal(parse('filter[status][_eq]=published&limit=2'), first);
    assert.ok(Object.isFrozen(first) && Object.isFrozen((first.filter as { status: object }).status));
    assert.throws(() => {
      (first as Record<string, unknown>).limit = '3';
    }, TypeError);
    const withToken = parse('limit=1&access_token=abc');
    assert.notEqual(parse('limit=1&access_token=abc'), withToken);
    assert.ok(!Object.isFrozen(withToken));
  });
});

for (const client of testClients()) {
  describe(`repeated query strings (${clientLabel(client)})`, () => {
    let t: TestApp;
    let user: { token: string };
    let policy: string;

    before(async () => {
      t = await startTestApp(client);
      policy = await createPolicy(t, {
        permissions: [{ collection: 'articles', fields: 'id,status', permissions: { status: { _eq: 'published' } } }],
      });
      user = await createUserWithPolicies(t, [policy]);
      await t.context.permissionsChanged();
    });
    after(() => t.close());

    const read = async (token?: string | null) => {
      const response = await t.request({ method: 'GET', url: URL, ...(token === undefined ? {} : { token }) });
      assert.equal(response.statusCode, 200, response.body);
      return json<{ data: Row[] }>(response).data;
    };

    it('answers each caller by their own permissions, in any order, and follows a permission change', async () => {
      const admin = await read();
      const statuses = new Set(admin.map((row) => row.status));
      assert.ok(statuses.has('published') && statuses.has('draft'), 'the fixture has drafts and published articles');
      const published = admin.filter((row) => row.status === 'published');
      assert.deepEqual(await read(user.token), published);
      assert.deepEqual(await read(), admin);
      assert.deepEqual(await read(user.token), published);

      await queryBuilder(t.context.db)('service_permissions')
        .where({ policy })
        .update({ permissions: JSON.stringify({ status: { _eq: 'draft' } }) });
      await t.context.permissionsChanged();
      assert.deepEqual(
        await read(user.token),
        admin.filter((row) => row.status === 'draft'),
      );
      assert.deepEqual(await read(), admin);
    });

    it('fails an unknown token on a repeated string, and the public caller has its own answer', async () => {
      await read();
      const response = await t.request({ method: 'GET', url: URL, token: 'no-such-token' });
      assert.equal(response.statusCode, 401);
      assert.equal(errorCode(response), 'INVALID_CREDENTIALS');
      const forbidden = await t.request({ method: 'GET', url: URL, token: null });
      assert.equal(forbidden.statusCode, 403);
    });
  });
}
