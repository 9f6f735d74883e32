/**
 * Directus compatibility: strict where Directus is strict. Concealed and hashed fields may only be filtered with
 * `_null`/`_nnull` (other operators, sorts, groups and aggregates other than count are 400), directly and through
 * relations — while permission rules written by an admin may still compare them. MAX_RELATIONAL_DEPTH is counted
 * as Directus counts it: the limit itself is allowed in fields, filters, sorts and deep, one more is 400, and an
 * aggregate read counts its groups, not its (ignored) fields.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';

for (const client of testClients()) {
  describe(`strict where Directus is strict (${clientLabel(client)})`, () => {
    let t: TestApp;
    const send = (method: 'POST' | 'PATCH', url: string, body: unknown) =>
      t.request({ method, url, payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    const get = (url: string) => t.request({ method: 'GET', url });
    const enc = (value: unknown) => encodeURIComponent(JSON.stringify(value));

    before(async () => {
      t = await startTestApp(client, { relations: true, env: { MAX_RELATIONAL_DEPTH: '5' } });
      const res = await send('POST', '/collections', {
        collection: 'vault',
        schema: {},
        fields: [
          { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
          { field: 'secret', type: 'string', meta: { special: ['conceal'] } },
          { field: 'pin', type: 'hash' },
          { field: 'author', type: 'integer', meta: { special: ['m2o'] } },
        ],
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(
        (await send('POST', '/relations', { collection: 'vault', field: 'author', related_collection: 'authors' }))
          .statusCode,
        200,
      );
      assert.equal(
        (await send('POST', '/items/vault', [{ secret: 'abc', pin: 'pin-1', author: 1 }, { author: 2 }])).statusCode,
        200,
      );
    });
    after(async () => {
      await t?.close();
    });

    it('filters concealed and hashed fields only with _null and _nnull', async () => {
      for (const field of ['secret', 'pin']) {
        assert.equal(json(await get(`/items/vault?filter[${field}][_null]=true`)).data.length, 1, field);
        assert.equal(json(await get(`/items/vault?filter[${field}][_nnull]=true`)).data.length, 1, field);
        for (const operator of ['_eq', '_neq', '_contains', '_starts_with', '_ends_with', '_in', '_empty']) {
          const res = await get(`/items/vault?filter[${field}][${operator}]=a`);
          assert.equal(res.statusCode, 400, `${field} ${operator}: ${res.body}`);
          assert.equal(errorCode(res), 'INVALID_QUERY');
        }
      }
      // Through a relation (o2m from authors is not declared; m2o from vault, and a nested filter on authors).
      assert.equal(
        json(
          await get(
            `/items/vault?filter=${enc({ author: { name: { _eq: 'Ada Lovelace' } }, secret: { _nnull: true } })}`,
          ),
        ).data.length,
        1,
      );
      assert.equal(
        (await get(`/items/vault?filter=${enc({ _or: [{ id: { _eq: 1 } }, { secret: { _contains: 'a' } }] })}`))
          .statusCode,
        400,
      );
    });

    it('refuses sorts, groups and aggregates other than count on them', async () => {
      for (const url of [
        '/items/vault?sort=secret',
        '/items/vault?sort=-pin',
        '/items/vault?aggregate[min]=secret',
        '/items/vault?aggregate[countDistinct]=pin',
        '/items/vault?aggregate[count]=*&groupBy[]=secret',
      ]) {
        const res = await get(url);
        assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
        assert.equal(errorCode(res), 'INVALID_QUERY');
      }
      assert.deepEqual(json(await get('/items/vault?aggregate[count]=pin')).data, [{ count: { pin: 1 } }]);
    });

    it('still lets permission rules compare them', async () => {
      const policy = json(
        await send('POST', '/policies', { name: 'Vault readers', app_access: false, admin_access: false }),
      ).data;
      const role = json(await send('POST', '/roles', { name: 'Vault', policies: [{ policy: policy.id }] })).data;
      await send('POST', '/users', {
        email: 'vault@example.com',
        password: 'vault-password-1',
        role: role.id,
        token: 'vault-token',
      });
      await send('POST', '/permissions', {
        policy: policy.id,
        collection: 'vault',
        action: 'read',
        fields: ['id'],
        permissions: { secret: { _eq: 'abc' } },
      });
      const res = await t.request({ method: 'GET', url: '/items/vault', token: 'vault-token' });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(json(res).data, [{ id: 1 }]);
    });

    it('counts MAX_RELATIONAL_DEPTH as Directus does', async () => {
      // articles.tags (m2m) and the junction's articles_id (m2o back) walk a path of any length.
      const path = (n: number) => Array.from({ length: n }, (_, i) => (i % 2 === 0 ? 'tags' : 'articles_id'));
      const fieldPath = (n: number) => [...path(n - 1), 'id'].join('.');
      const nested = (n: number) =>
        [...path(n - 1), 'id'].reduceRight<Record<string, unknown>>((acc, key) => ({ [key]: acc }), { _nnull: true });
      const deep = (n: number) =>
        path(n - 1).reduceRight<Record<string, unknown>>((acc, key) => ({ [key]: acc }), {
          _filter: { id: { _nnull: true } },
        });
      const within = [
        `fields=${fieldPath(5)}`,
        `fields=id&filter=${enc(nested(5))}`,
        `fields=id,tags.id&deep=${enc(deep(5))}`,
        'fields=id&sort=author.name',
      ];
      for (const query of within) assert.equal((await get(`/items/articles?${query}`)).statusCode, 200, query);
      for (const query of [
        `fields=${fieldPath(6)}`,
        `fields=id&filter=${enc(nested(6))}`,
        `fields=id,tags.id&deep=${enc(deep(6))}`,
        `fields=id&sort=${fieldPath(6)}`,
      ]) {
        const res = await get(`/items/articles?${query}`);
        assert.equal(res.statusCode, 400, query);
        assert.match(json(res).errors[0].message, /Max relational depth exceeded/);
      }
      // An aggregate read selects no fields: only its groups count.
      assert.equal((await get(`/items/articles?aggregate[count]=*&fields=${fieldPath(6)}`)).statusCode, 200);
      assert.equal((await get(`/items/articles?aggregate[count]=*&groupBy[]=${fieldPath(6)}`)).statusCode, 400);
    });
  });
}
