/**
 * Directus compatibility: `$FOLLOW(collection, field)` in filters — a reverse relation named by its many side,
 * without an o2m alias field (`_some` by default, `_none`), under the caller's permissions — and an m2m alias
 * created through the API (alias field, junction collection, two relations, as Directus's app and test suite make
 * it) read at once in a create response's `fields`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';

for (const client of testClients()) {
  describe(`$FOLLOW and fresh m2m aliases (${clientLabel(client)})`, () => {
    let t: TestApp;
    const send = (method: 'POST' | 'PATCH', url: string, body: unknown, token?: string) =>
      t.request({ method, url, payload: JSON.stringify(body), headers: { 'content-type': 'application/json' }, token });
    const ids = async (url: string, token?: string) => {
      const res = await t.request({ method: 'GET', url, token });
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      return (json(res).data as { id: number }[]).map((row) => row.id).sort((a, b) => a - b);
    };
    const enc = (value: unknown) => encodeURIComponent(JSON.stringify(value));

    before(async () => {
      // The fixture without its relational metadata: articles.author is a plain m2o, authors have no o2m alias.
      t = await startTestApp(client);
    });
    after(async () => {
      await t?.close();
    });

    it('filters through a reverse relation without an alias field', async () => {
      // Authors 1..3 wrote articles {1,2}, {3,4}, {5}; which are published comes from the fixture.
      const published = (await ids('/items/articles?fields=id&filter[status][_eq]=published&limit=-1')) as number[];
      const articles = json(await t.request({ method: 'GET', url: '/items/articles?fields=id,author&limit=-1' }))
        .data as { id: number; author: number | null }[];
      const expected = [
        ...new Set(articles.filter((a) => published.includes(a.id) && a.author !== null).map((a) => a.author!)),
      ].sort();
      assert.deepEqual(
        await ids(
          `/items/authors?fields=id&filter=${enc({ '$FOLLOW(articles, author)': { _some: { status: { _eq: 'published' } } } })}`,
        ),
        expected,
      );
      assert.deepEqual(
        await ids(
          `/items/authors?fields=id&filter=${enc({ '$FOLLOW(articles,author)': { status: { _eq: 'published' } } })}`,
        ),
        expected,
      );
      const none = await ids(
        `/items/authors?fields=id&filter=${enc({ _and: [{ '$FOLLOW(articles,author)': { _none: { status: { _eq: 'published' } } } }] })}`,
      );
      assert.deepEqual(
        none,
        [1, 2, 3].filter((id) => !expected.includes(id)),
      );
      assert.deepEqual(
        await ids(
          `/items/authors?fields=id&filter=${enc({ '$FOLLOW(articles,author)': { _some: { title: { _eq: 'no such title' } } } })}`,
        ),
        [],
      );
    });

    it('refuses a $FOLLOW that names no relation to this collection, or what the caller may not read', async () => {
      for (const follow of ['$FOLLOW(articles,title)', '$FOLLOW(tags,name)']) {
        const res = await t.request({
          method: 'GET',
          url: `/items/authors?filter=${enc({ [follow]: { id: { _nnull: true } } })}`,
        });
        assert.equal(res.statusCode, 400, `${follow}: ${res.body}`);
        assert.equal(errorCode(res), 'INVALID_QUERY');
      }
      assert.equal(
        (
          await t.request({
            method: 'GET',
            url: `/items/authors?filter=${enc({ '$FOLLOW(nope,author)': { id: { _nnull: true } } })}`,
          })
        ).statusCode,
        403,
      );
      const policy = json(
        await send('POST', '/policies', { name: 'Authors only', app_access: false, admin_access: false }),
      ).data;
      const role = json(await send('POST', '/roles', { name: 'Authors only', policies: [{ policy: policy.id }] })).data;
      await send('POST', '/users', {
        email: 'authors@example.com',
        password: 'authors-password-1',
        role: role.id,
        token: 'authors-token',
      });
      await send('POST', '/permissions', { policy: policy.id, collection: 'authors', action: 'read', fields: ['*'] });
      const hidden = await t.request({
        method: 'GET',
        url: `/items/authors?filter=${enc({ '$FOLLOW(articles,author)': { id: { _nnull: true } } })}`,
        token: 'authors-token',
      });
      assert.equal(hidden.statusCode, 403, hidden.body);
    });

    it('reads an m2m alias created through the API in the create response', async () => {
      const created = [
        await send('POST', '/fields/articles', {
          field: 'labels',
          type: 'alias',
          meta: { special: ['m2m'], interface: 'list-m2m' },
          schema: null,
        }),
        await send('POST', '/collections', {
          collection: 'articles_labels',
          meta: { hidden: true },
          schema: {},
          fields: [{ field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } }],
        }),
        await send('POST', '/fields/articles_labels', { field: 'articles_id', type: 'integer', meta: {}, schema: {} }),
        await send('POST', '/fields/articles_labels', { field: 'tags_id', type: 'integer', meta: {}, schema: {} }),
        await send('POST', '/relations', {
          collection: 'articles_labels',
          field: 'articles_id',
          related_collection: 'articles',
          meta: { one_field: 'labels', junction_field: 'tags_id' },
          schema: { on_delete: 'SET NULL' },
        }),
        await send('POST', '/relations', {
          collection: 'articles_labels',
          field: 'tags_id',
          related_collection: 'tags',
          meta: { one_field: null, junction_field: 'articles_id' },
          schema: { on_delete: 'SET NULL' },
        }),
      ];
      for (const res of created) assert.equal(res.statusCode, 200, res.body);
      const res = await send('POST', '/items/articles?fields=id,title,labels.tags_id.name', {
        title: 'Labelled',
        status: 'draft',
        labels: [{ tags_id: { name: 'fresh-label' } }, { tags_id: 1 }],
      });
      assert.equal(res.statusCode, 200, res.body);
      const names = (json(res).data.labels as { tags_id: { name: string } }[]).map((l) => l.tags_id.name);
      assert.equal(names.length, 2);
      assert.ok(names.includes('fresh-label'));
      const all = await send('POST', '/items/articles?fields=*,labels.*', {
        title: 'Labelled too',
        status: 'draft',
        labels: [{ tags_id: 2 }],
      });
      assert.equal(all.statusCode, 200, all.body);
      assert.equal(json(all).data.labels[0].tags_id, 2);
    });
  });
}
