/**
 * Directus compatibility: `fields` paths through a field that is no relation (unknown, or a plain column), written
 * plainly or inside `json(...)`, are ignored as Directus ignores them; the rest of the read answers. What Directus
 * refuses stays refused: an unknown field asked for by itself, at any level, and an unknown JSON field at the end of
 * a relational `json(...)` path (403 FORBIDDEN).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';

for (const client of testClients()) {
  describe(`unknown relational paths in fields are ignored (${clientLabel(client)})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(client, { relations: true });
    });
    after(async () => {
      await t?.close();
    });

    const get = (path: string, fields: string) =>
      t.request({ method: 'GET', url: `${path}?fields=${encodeURIComponent(fields)}&filter[id][_in]=1,2&sort=id` });
    const data = async (path: string, fields: string) => {
      const res = await get(path, fields);
      assert.equal(res.statusCode, 200, `${fields}: ${res.body}`);
      return json(res).data;
    };

    it('ignores a path through a plain column or an unknown field, and still reads the field named alone', async () => {
      assert.deepEqual(await data('/items/articles', 'id,title.x'), [{ id: 1 }, { id: 2 }]);
      assert.deepEqual(await data('/items/articles', 'title.x'), [{}, {}]);
      assert.deepEqual(await data('/items/articles', 'id,nonexistent.x.y'), [{ id: 1 }, { id: 2 }]);
      const titled = await data('/items/articles', 'id,title,title.x');
      assert.deepEqual(
        titled.map((row: { id: number; title: unknown }) => [row.id, typeof row.title]),
        [
          [1, 'string'],
          [2, 'string'],
        ],
      );
    });

    it('ignores it under a relation: the related item answers without it', async () => {
      assert.deepEqual(await data('/items/articles', 'id,author.nonexistent.*'), [
        { id: 1, author: {} },
        { id: 2, author: {} },
      ]);
      const named = await data('/items/articles', 'id,author.name,author.name.x');
      assert.equal(typeof named[0].author.name, 'string');
      const lists = await data('/items/authors', 'id,articles.nonexistent.x');
      assert.ok(lists[0].articles.length > 0);
      for (const item of lists[0].articles) assert.deepEqual(item, {});
    });

    it('ignores an unknown relational path inside json(...)', async () => {
      assert.deepEqual(await data('/items/articles', 'id,json(title.data, lang)'), [{ id: 1 }, { id: 2 }]);
      assert.deepEqual(await data('/items/articles', 'id,json(nonexistent.data, lang)'), [{ id: 1 }, { id: 2 }]);
    });

    it('still refuses unknown fields asked for by themselves, as Directus does', async () => {
      for (const fields of ['id,nonexistent', 'id,author.nonexistent', 'id,json(author.nonexistent, lang)']) {
        const res = await get('/items/articles', fields);
        assert.equal(res.statusCode, 403, `${fields}: ${res.body}`);
        assert.equal(errorCode(res), 'FORBIDDEN');
      }
    });
  });
}
