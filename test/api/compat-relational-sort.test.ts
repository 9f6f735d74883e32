/**
 * Directus compatibility: sorting inside relational levels. `deep[<m2m>][_sort]` by the junction's related fields,
 * `deep[<m2a>][_sort]` by a scoped item field (`item:headings.level`), function fields at those levels
 * (`-item:headings.year(published)`), and top-level sorts through o2m and m2a paths (Directus's own suite sorts
 * shapes by `children.item:circles.year(test_datetime)`): each row once, by the smallest related value ascending
 * and the largest descending.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { json, startTestApp, type TestApp } from '../helpers/test-app.js';

for (const client of testClients()) {
  describe(`sorting inside relational levels (${clientLabel(client)})`, () => {
    let t: TestApp;
    const send = (method: 'POST' | 'PATCH', url: string, body: unknown) =>
      t.request({ method, url, payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    const data = async (url: string) => {
      const res = await t.request({ method: 'GET', url });
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      return json(res).data;
    };

    before(async () => {
      t = await startTestApp(client, { relations: true });
      assert.equal((await send('POST', '/fields/headings', { field: 'published', type: 'dateTime' })).statusCode, 200);
      // Headings: 1 "Welcome" (level 1, 2021), 2 "Our story" (level 2, 2023), 3 "Later" (level 3, 2022).
      await send('PATCH', '/items/headings/1', { published: '2021-05-01T00:00:00' });
      await send('PATCH', '/items/headings/2', { published: '2023-05-01T00:00:00' });
      await send('POST', '/items/headings', { text: 'Later', level: 3, published: '2022-05-01T00:00:00' });
      // Page 3 ("Empty") gets headings 3 and 1; page 1 has heading 1, page 2 heading 2 (fixture).
      await send('PATCH', '/items/pages/3', {
        sections: [
          { collection: 'headings', item: '3', sort: 1 },
          { collection: 'headings', item: '1', sort: 2 },
        ],
      });
    });
    after(async () => {
      await t?.close();
    });

    it('sorts m2m levels by the junction and by the related rows', async () => {
      // Article 1 is tagged 1 and 3; tags are named by the fixture.
      const tags = (await data('/items/tags?fields=id,name&sort=name')) as { id: number; name: string }[];
      const names = tags.filter((tag) => [1, 3].includes(tag.id)).map((tag) => tag.name);
      const asc = await data('/items/articles/1?fields=tags.tags_id.name&deep[tags][_sort]=tags_id.name');
      assert.deepEqual(
        asc.tags.map((t: { tags_id: { name: string } }) => t.tags_id.name),
        names,
      );
      const desc = await data('/items/articles/1?fields=tags.tags_id.name&deep[tags][_sort]=-tags_id.name');
      assert.deepEqual(
        desc.tags.map((t: { tags_id: { name: string } }) => t.tags_id.name),
        [...names].reverse(),
      );
      const nested = await data(
        '/items/authors/1?fields=articles.id,articles.tags.tags_id.id&deep[articles][_sort]=id&deep[articles][tags][_sort]=-tags_id.id',
      );
      assert.deepEqual(
        nested.articles[0].tags.map((t: { tags_id: { id: number } }) => t.tags_id.id),
        [3, 1],
      );
    });

    it('sorts m2a levels by a scoped item field and by function fields there', async () => {
      const byLevel = await data(
        '/items/pages/3?fields=sections.item:headings.text&deep[sections][_sort]=-item:headings.level',
      );
      assert.deepEqual(
        byLevel.sections.map((s: { item: { text: string } }) => s.item.text),
        ['Later', 'Welcome'],
      );
      const byYear = await data(
        '/items/pages/3?fields=sections.item:headings.text&deep[sections][_sort]=item:headings.year(published)',
      );
      assert.deepEqual(
        byYear.sections.map((s: { item: { text: string } }) => s.item.text),
        ['Welcome', 'Later'],
      );
      const byYearDesc = await data(
        '/items/pages/3?fields=sections.item:headings.text&deep[sections][_sort]=-item:headings.year(published)&deep[sections][_limit]=1',
      );
      assert.deepEqual(
        byYearDesc.sections.map((s: { item: { text: string } }) => s.item.text),
        ['Later'],
      );
      // Function fields at o2m levels.
      const articles = await data('/items/authors/1?fields=articles.id&deep[articles][_sort]=-day(published_at)');
      assert.deepEqual(
        articles.articles.map((a: { id: number }) => a.id),
        [1, 2],
      );
    });

    it('sorts top-level rows through o2m and m2a paths, each row once', async () => {
      // Authors 1..3 wrote articles {1,2}, {3,4}, {5}.
      assert.deepEqual(
        (await data('/items/authors?fields=id&sort=-articles.id')).map((a: { id: number }) => a.id),
        [3, 2, 1],
      );
      assert.deepEqual(
        (await data('/items/authors?fields=id&sort=articles.id')).map((a: { id: number }) => a.id),
        [1, 2, 3],
      );
      // Pages by their headings' years: 1 → 2021; 2 → 2023; 3 → 2021..2022.
      const asc = (await data('/items/pages?fields=id&sort=sections.item:headings.year(published),id')).map(
        (p: { id: number }) => p.id,
      );
      assert.deepEqual(asc, [1, 3, 2]);
      const desc = (await data('/items/pages?fields=id&sort=-sections.item:headings.year(published),id')).map(
        (p: { id: number }) => p.id,
      );
      assert.deepEqual(desc, [2, 3, 1]);
      // Group by stays on one-row paths.
      const grouped = await t.request({
        method: 'GET',
        url: '/items/authors?aggregate[count]=*&groupBy[]=articles.id',
      });
      assert.equal(grouped.statusCode, 400);
    });
  });
}
