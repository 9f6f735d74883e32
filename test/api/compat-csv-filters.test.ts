/**
 * Directus compatibility: csv fields. As in Directus, a field created with `type: 'csv'` is a list only when it
 * carries the `cast-csv` flag; without it (Directus's own test suite sends `meta: {}`) the column is plain text,
 * reads back as a string and every operator compares that text — at the top level and through m2o, o2m, m2m and m2a
 * paths alike.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { json, startTestApp, type TestApp } from '../helpers/test-app.js';

for (const client of testClients()) {
  describe(`csv fields filtered as Directus filters them (${clientLabel(client)})`, () => {
    let t: TestApp;
    const send = (method: 'POST' | 'PATCH', url: string, body: unknown) =>
      t.request({ method, url, payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    const get = (url: string) => t.request({ method: 'GET', url });
    const ids = async (url: string) => {
      const res = await get(url);
      assert.equal(res.statusCode, 200, res.body);
      return (json(res).data as { id: number }[]).map((row) => row.id).sort((a, b) => a - b);
    };

    before(async () => {
      t = await startTestApp(client, { relations: true });
      // As Directus's test suite creates them: `meta: {}`, no special flag.
      for (const collection of ['authors', 'headings']) {
        const res = await send('POST', `/fields/${collection}`, { field: 'codes', type: 'csv', meta: {}, schema: {} });
        assert.equal(res.statusCode, 200, res.body);
      }
      assert.equal(
        (await send('POST', '/fields/tags', { field: 'codes', type: 'csv', meta: { special: ['cast-csv'] } }))
          .statusCode,
        200,
      );
      for (const [id, codes] of [
        [1, 'a1b2'],
        [2, 'c3,d4'],
        [3, ''],
      ] as const) {
        assert.equal((await send('PATCH', `/items/authors/${id}`, { codes })).statusCode, 200);
      }
      assert.equal((await send('PATCH', '/items/headings/1', { codes: 'x9,y8' })).statusCode, 200);
      const tags = json(await get('/items/tags?fields=id&sort=id')).data as { id: number }[];
      assert.equal((await send('PATCH', `/items/tags/${tags[0]!.id}`, { codes: ['p', 'q'] })).statusCode, 200);
    });
    after(async () => {
      await t?.close();
    });

    it('a csv field without cast-csv is text: its type reads back as text and its values as strings', async () => {
      const field = json(await get('/fields/authors/codes')).data;
      assert.equal(field.type, 'text');
      assert.equal(field.meta.special, null);
      const rows = json(await get('/items/authors?fields=id,codes&sort=id')).data;
      assert.deepEqual(
        rows.map((r: { codes: unknown }) => r.codes),
        ['a1b2', 'c3,d4', ''],
      );
    });

    it('every operator compares the stored text', async () => {
      const cases: [string, number[]][] = [
        ['filter[codes][_eq]=c3,d4', [2]],
        ['filter[codes][_neq]=c3,d4', [1, 3]],
        ['filter[codes][_in]=a1b2', [1]],
        ['filter[codes][_in][]=a1b2&filter[codes][_in][]=c3,d4', [1, 2]],
        ['filter[codes][_nin][]=a1b2', [2, 3]],
        ['filter[codes][_contains]=3,d', [2]],
        ['filter[codes][_ncontains]=3,d', [1, 3]],
        ['filter[codes][_icontains]=A1', [1]],
        ['filter[codes][_starts_with]=c3,', [2]],
        ['filter[codes][_nstarts_with]=c3', [1, 3]],
        ['filter[codes][_ends_with]=,d4', [2]],
        ['filter[codes][_iends_with]=B2', [1]],
        ['filter[codes][_niends_with]=B2', [2, 3]],
        ['filter[codes][_empty]=true', [3]],
        ['filter[codes][_nempty]=true', [1, 2]],
        ['filter[codes][_null]=true', []],
        ['filter[codes][_nnull]=true', [1, 2, 3]],
      ];
      for (const [query, expected] of cases) {
        const rows = json(await get(`/items/authors?fields=id,codes&${query}`)).data as {
          id: number;
          codes: unknown;
        }[];
        assert.deepEqual(rows.map((r) => r.id).sort(), expected, query);
        for (const row of rows) assert.equal(typeof row.codes, 'string', `${query}: ${JSON.stringify(row)}`);
      }
    });

    it('the same through m2o, o2m, m2m and m2a paths', async () => {
      // Articles 1 and 2 are by author 1, article 3 by author 2 (fixture).
      assert.deepEqual(await ids('/items/articles?fields=id,author.codes&filter[author][codes][_eq]=a1b2'), [1, 2]);
      assert.deepEqual(await ids('/items/articles?fields=id&filter[author][codes][_contains]=d4'), [3, 4]);
      const viaO2m = await ids('/items/authors?fields=id&filter[articles][_some][author][codes][_starts_with]=c3');
      assert.deepEqual(viaO2m, [2]);
      const tagged = json(
        await get('/items/articles_tags?fields=articles_id&filter[tags_id][codes][_null]=false&limit=-1'),
      ).data;
      const m2m = await ids('/items/articles?fields=id&filter[tags][tags_id][codes][_nnull]=true');
      assert.deepEqual(m2m, [...new Set(tagged.map((r: { articles_id: number }) => r.articles_id))].sort());
      const m2a = json(
        await get(
          '/items/pages?fields=id,sections.item:headings.codes&filter[sections][item:headings][codes][_eq]=x9,y8',
        ),
      ).data;
      assert.ok(m2a.length > 0);
      for (const page of m2a)
        assert.ok(
          page.sections.some((s: { item: { codes?: string } }) => s.item?.codes === 'x9,y8'),
          JSON.stringify(page),
        );
    });

    it('with cast-csv the values are lists, and filters still compare the stored text', async () => {
      const field = json(await get('/fields/tags/codes')).data;
      assert.equal(field.type, 'csv');
      const rows = json(await get('/items/tags?fields=id,codes&filter[codes][_contains]=q')).data;
      assert.deepEqual(
        rows.map((r: { codes: unknown }) => r.codes),
        [['p', 'q']],
      );
      assert.equal(json(await get('/items/tags?fields=id&filter[codes][_eq]=p,q')).data.length, 1);
      assert.equal(json(await get('/items/tags?fields=id&filter[codes][_eq]=p')).data.length, 0);
    });
  });
}
