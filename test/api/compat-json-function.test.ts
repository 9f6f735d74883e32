/**
 * Directus compatibility: `json(field, path)` in `fields` (Directus 11.17's JSON extraction), answered under
 * `<field>_<path>_json` — nested keys, array indexes, whole objects and arrays, missing values as null, through m2o,
 * o2m and m2a paths, with aliases, in a write's response, and the refusals (non-JSON fields, unsupported paths,
 * MAX_JSON_QUERY_DEPTH, json() outside `fields`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';

for (const client of testClients()) {
  describe(`json(field, path) in fields (${clientLabel(client)})`, () => {
    let t: TestApp;
    const send = (method: 'POST' | 'PATCH', url: string, body: unknown) =>
      t.request({ method, url, payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    const get = (url: string) => t.request({ method: 'GET', url });
    const data = async (url: string) => {
      const res = await get(url);
      assert.equal(res.statusCode, 200, res.body);
      return json(res).data;
    };

    before(async () => {
      t = await startTestApp(client, { relations: true, env: { MAX_JSON_QUERY_DEPTH: '3' } });
      for (const [collection, field] of [
        ['authors', 'settings'],
        ['headings', 'meta'],
      ]) {
        assert.equal(
          (await send('POST', `/fields/${collection}`, { field, type: 'json', meta: {}, schema: {} })).statusCode,
          200,
        );
      }
      await send('PATCH', '/items/authors/1', { settings: { theme: 'dark', sizes: [{ w: 1 }, { w: 2 }] } });
      await send('PATCH', '/items/authors/2', { settings: { theme: 'light' } });
      await send('PATCH', '/items/headings/1', { meta: { color: 'blue' } });
    });
    after(async () => {
      await t?.close();
    });

    it('answers keys, indexes, objects, arrays and missing values under <field>_<path>_json', async () => {
      // Article 1: {"lang":"en","tags":["a","b"],"n":1}; article 3 has no metadata.
      const rows = await data(
        '/items/articles?fields=id,json(metadata, lang),json(metadata, tags[1]),json(metadata, tags),json(metadata, n),json(metadata, nope.deeper)&filter[id][_in]=1,3&sort=id',
      );
      assert.deepEqual(rows[0], {
        id: 1,
        metadata_lang_json: 'en',
        metadata_tags_1_json: 'b',
        metadata_tags_json: ['a', 'b'],
        metadata_n_json: 1,
        metadata_nope_deeper_json: null,
      });
      assert.deepEqual(rows[1], {
        id: 3,
        metadata_lang_json: null,
        metadata_tags_1_json: null,
        metadata_tags_json: null,
        metadata_n_json: null,
        metadata_nope_deeper_json: null,
      });
      const author = await data('/items/authors/1?fields=json(settings, sizes[1].w),json(settings, sizes),settings');
      assert.deepEqual(author, {
        settings_sizes_1_w_json: 2,
        settings_sizes_json: [{ w: 1 }, { w: 2 }],
        settings: { theme: 'dark', sizes: [{ w: 1 }, { w: 2 }] },
      });
    });

    it('follows m2o, o2m and m2a paths, answering under the relational key', async () => {
      const articles = await data(
        '/items/articles?fields=id,author.name,json(author.settings, theme)&filter[id][_in]=1,3&sort=id',
      );
      assert.deepEqual(articles, [
        { id: 1, author: { name: 'Ada Lovelace', settings_theme_json: 'dark' } },
        { id: 3, author: { name: 'Alan Turing', settings_theme_json: 'light' } },
      ]);
      const author = await data('/items/authors/1?fields=id,json(articles.metadata, lang)&deep[articles][_sort]=id');
      assert.deepEqual(author, { id: 1, articles: [{ metadata_lang_json: 'en' }, { metadata_lang_json: 'fr' }] });
      const page = await data(
        '/items/pages/1?fields=id,sections.collection,json(sections.item:headings.meta, color)&deep[sections][_sort]=sort',
      );
      assert.deepEqual(page.sections[0], { collection: 'headings', item: { meta_color_json: 'blue' } });
    });

    it('takes aliases', async () => {
      const rows = await data(
        '/items/articles?fields=id,language&alias[language]=json(metadata, lang)&filter[id][_eq]=2',
      );
      assert.deepEqual(rows, [{ id: 2, language: 'fr' }]);
    });

    it('answers in a write response', async () => {
      const created = await send('POST', '/items/articles?fields=id,json(metadata, lang)', {
        title: 'Json',
        status: 'draft',
        metadata: { lang: 'de' },
      });
      assert.equal(created.statusCode, 200, created.body);
      assert.equal(json(created).data.metadata_lang_json, 'de');
      const updated = await send('PATCH', `/items/articles/${json(created).data.id}?fields=json(metadata, lang)`, {
        metadata: { lang: 'it' },
      });
      assert.equal(updated.statusCode, 200, updated.body);
      assert.deepEqual(json(updated).data, { metadata_lang_json: 'it' });
    });

    it('answers JSON values where a field permission shows the field, null elsewhere', async () => {
      const policy = json(
        await send('POST', '/policies', { name: 'Partial', app_access: false, admin_access: false }),
      ).data;
      const role = json(await send('POST', '/roles', { name: 'Partial', policies: [{ policy: policy.id }] })).data;
      await send('POST', '/users', {
        email: 'partial@example.com',
        password: 'partial-password-1',
        role: role.id,
        token: 'partial-token',
      });
      await send('POST', '/permissions', { policy: policy.id, collection: 'articles', action: 'read', fields: ['id'] });
      await send('POST', '/permissions', {
        policy: policy.id,
        collection: 'articles',
        action: 'read',
        fields: ['id', 'metadata'],
        permissions: { status: { _eq: 'published' } },
      });
      const res = await t.request({
        method: 'GET',
        url: '/items/articles?fields=id,json(metadata, lang),json(metadata, tags)&filter[id][_in]=1,3&sort=id',
        token: 'partial-token',
      });
      assert.equal(res.statusCode, 200, res.body);
      // Article 1 is published (metadata shown), article 3 a draft (metadata hidden).
      assert.deepEqual(json(res).data, [
        { id: 1, metadata_lang_json: 'en', metadata_tags_json: ['a', 'b'] },
        { id: 3, metadata_lang_json: null, metadata_tags_json: null },
      ]);
    });

    it('refuses non-JSON fields, unsupported paths, paths deeper than MAX_JSON_QUERY_DEPTH and json() outside fields', async () => {
      for (const fields of [
        'json(title, a)',
        'json(metadata, tags[*])',
        'json(metadata, tags[])',
        'json(metadata, $.lang)',
        'json(metadata)',
        'json(metadata, a.b.c.d)',
      ]) {
        const res = await get(`/items/articles?fields=${encodeURIComponent(fields)}`);
        assert.equal(res.statusCode, 400, `${fields}: ${res.body}`);
        assert.equal(errorCode(res), 'INVALID_QUERY', fields);
      }
      assert.equal(
        (await get(`/items/articles?fields=${encodeURIComponent('json(metadata, a.b.c)')}`)).statusCode,
        200,
      );
      assert.equal(
        errorCode(await get(`/items/articles?filter[${encodeURIComponent('json(metadata, lang)')}][_eq]=en`)),
        'INVALID_QUERY',
      );
      assert.equal(
        errorCode(await get(`/items/articles?sort=${encodeURIComponent('json(metadata, lang)')}`)),
        'INVALID_QUERY',
      );
      assert.equal((await get(`/items/articles?fields=${encodeURIComponent('json(nope, lang)')}`)).statusCode, 403);
    });
  });
}
