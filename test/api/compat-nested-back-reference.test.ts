/**
 * Directus compatibility: nested writes as Directus makes them. An o2m item names its parent's back-reference: the
 * parent being written wins (Directus overwrites the field with the parent's key), so an object there builds no new
 * parent and a placeholder such as `policy: "+"` (what the Directus app and Directus's own tests send when a
 * policy is created with its permissions) is no value to check. A batch update (`keys` or `query` with `data`)
 * creates a nested m2o object once for all its keys, and counts it once against MAX_BATCH_MUTATION.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { queryBuilder } from '../../src/db/connection.js';

const LIMIT = 6;
type Row = Record<string, unknown>;

for (const client of testClients()) {
  describe(`nested writes name the parent being written (${clientLabel(client)})`, () => {
    let t: TestApp;
    let serial = 0;
    const send = (method: 'POST' | 'PATCH' | 'GET', url: string, body?: unknown, token?: string) =>
      t.request({
        method,
        url,
        ...(body === undefined
          ? {}
          : { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
        ...(token === undefined ? {} : { token }),
      });
    const ok = async (method: 'POST' | 'PATCH' | 'GET', url: string, body?: unknown) => {
      const res = await send(method, url, body);
      assert.equal(res.statusCode, 200, res.body);
      return json(res).data;
    };
    const rows = async (table: string, where: Row): Promise<Row[]> =>
      (await queryBuilder(t.context.db)(table).where(where).orderBy('id')).map((row: Row) => ({ ...row }));
    const name = (prefix: string) => `${prefix} ${++serial}`;

    before(async () => {
      t = await startTestApp(client, { relations: true, env: { MAX_BATCH_MUTATION: String(LIMIT) } });
    });
    after(async () => {
      await t?.close();
    });

    it('links an o2m create that names the back-reference as an object to the parent being written', async () => {
      const stray = name('Stray');
      const author = await ok('POST', '/items/authors?fields=id,articles.title', {
        name: name('Parent'),
        articles: { create: [{ title: name('Detailed'), author: { name: stray } }] },
      });
      assert.equal(author.articles.length, 1);
      assert.deepEqual(await rows('authors', { name: stray }), []);
    });

    it('does the same in the array form, on update and for a bare key naming another parent', async () => {
      const stray = name('Stray');
      const author = await ok('POST', '/items/authors?fields=id', {
        name: name('Parent'),
        articles: [
          { title: name('Array'), author: { name: stray } },
          { title: name('Keyed'), author: 2 },
        ],
      });
      const linked = await rows('articles', { author: author.id });
      assert.equal(linked.length, 2);
      await ok('PATCH', `/items/authors/${author.id}`, {
        articles: { create: [{ title: name('Later'), author: { name: stray } }], update: [], delete: [] },
      });
      assert.equal((await rows('articles', { author: author.id })).length, 3);
      assert.deepEqual(await rows('authors', { name: stray }), []);
    });

    it('resolves `policy: "+"` in a user created with a new policy and its permissions', async () => {
      const policyName = name('Plus policy');
      const res = await send('POST', '/users?fields=id,policies.policy.id', {
        email: `plus${serial}@example.com`,
        password: 'plus-password-1',
        token: `plus-token-${serial}`,
        policies: {
          create: [
            {
              policy: {
                name: policyName,
                app_access: true,
                permissions: {
                  create: [
                    {
                      policy: '+',
                      collection: 'articles',
                      action: 'read',
                      permissions: { status: { _eq: 'published' } },
                      validation: null,
                      presets: null,
                      fields: ['id', 'title'],
                    },
                  ],
                  update: [],
                  delete: [],
                },
              },
            },
          ],
          update: [],
          delete: [],
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      const policyId = json(res).data.policies[0].policy.id;
      const [permission] = await rows('service_permissions', { policy: policyId });
      assert.equal(permission!.collection, 'articles');
      const read = await send('GET', '/items/articles?fields=id,title&sort=id', undefined, `plus-token-${serial}`);
      assert.equal(read.statusCode, 200, read.body);
      assert.ok(json(read).data.length > 0);
    });

    it('resolves `role: "+"` and `policy: "+"` in a role created with policies, as the Directus app sends them', async () => {
      const role = await ok('POST', '/roles?fields=id,policies.policy.permissions.collection', {
        name: name('Plus role'),
        policies: {
          create: [
            {
              role: '+',
              policy: {
                name: name('Role policy'),
                permissions: { create: [{ policy: '+', collection: 'authors', action: 'read', fields: ['*'] }] },
              },
            },
          ],
        },
      });
      assert.equal(role.policies[0].policy.permissions[0].collection, 'authors');
    });

    it('creates a nested m2o object once for a batch update by keys and by query', async () => {
      const a = await ok('POST', '/items/articles?fields=id', { title: name('Batch a') });
      const b = await ok('POST', '/items/articles?fields=id', { title: name('Batch b') });
      const byKeys = name('Shared');
      await ok('PATCH', '/items/articles', { keys: [a.id, b.id], data: { author: { name: byKeys } } });
      const [created, ...more] = await rows('authors', { name: byKeys });
      assert.deepEqual(more, []);
      assert.deepEqual(
        (await rows('articles', { author: created!.id })).map((r) => Number(r.id)),
        [Number(a.id), Number(b.id)],
      );
      const byQuery = name('Shared');
      await ok('PATCH', '/items/articles', {
        query: { filter: { id: { _in: [a.id, b.id] } } },
        data: { author: { name: byQuery } },
      });
      assert.equal((await rows('authors', { name: byQuery })).length, 1);
      const byIds = name('Shared');
      const res = await t.request({
        method: 'POST',
        url: '/graphql',
        payload: JSON.stringify({
          query: `mutation { update_articles_items(ids: [${a.id}, ${b.id}], data: { author: { name: "${byIds}" } }) { id } }`,
        }),
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(json(res).errors, undefined, res.body);
      assert.equal((await rows('authors', { name: byIds })).length, 1);
    });

    it('counts the shared m2o object once against MAX_BATCH_MUTATION', async () => {
      const keys = [];
      for (let i = 0; i < LIMIT - 1; i += 1)
        keys.push((await ok('POST', '/items/articles?fields=id', { title: name('Limit') })).id);
      // LIMIT - 1 updated rows + 1 author created = the limit itself.
      await ok('PATCH', '/items/articles', { keys, data: { author: { name: name('Counted') } } });
      const over = await send('PATCH', '/items/articles', {
        keys: [...keys, 1],
        data: { author: { name: name('Counted') } },
      });
      assert.equal(over.statusCode, 400, over.body);
      assert.equal(errorCode(over), 'INVALID_PAYLOAD');
    });
  });
}
