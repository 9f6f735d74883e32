/**
 * Batch creates are multi-row INSERTs: 10,000 items in one request on every database, in a number of statements
 * fixed by the parameter limit (counted), every database-assigned key mapped back to its own row — nested batches too.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { json, onEveryWorker, startTestApp, type TestApp } from '../helpers/test-app.js';
import { queryBuilder } from '../../src/db/connection.js';

const ITEMS = 10_000;

for (const client of testClients()) {
  describe(`batch creates (${clientLabel(client)})`, () => {
    let t: TestApp;
    let statements: string[] = [];
    before(async () => {
      t = await startTestApp(client, {
        relations: true,
        env: { MAX_PAYLOAD_SIZE: '10mb' },
      });
      // The write's own statements are counted here; the audit trail's are counted in audit-trail.test.ts.
      for (const collection of ['articles', 'authors', 'tags', 'articles_tags']) {
        const res = await t.request({
          method: 'PATCH',
          url: `/collections/${collection}`,
          payload: { meta: { accountability: null } },
        });
        assert.equal(res.statusCode, 200, res.body);
      }
      // The write's own, not a system table's read (on loaded runs a select too many was counted now and then; the
      // counts' messages show the statements).
      onEveryWorker(t, ({ db }) =>
        db.onQuery((sql) => {
          if (!/\bservice_/.test(sql)) statements.push(sql);
        }),
      );
    });
    after(async () => {
      await t?.close();
    });

    const post = (url: string, body: unknown) =>
      t.request({
        method: 'POST',
        url,
        payload: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      });

    it(`creates ${ITEMS.toLocaleString('en')} items in one request with a bounded number of statements`, async () => {
      const items = Array.from({ length: ITEMS }, (_, i) => ({
        title: `Batch ${i}`,
        slug: `batch-${i}`,
        status: i % 2 ? 'published' : 'draft',
        rating: i % 5,
        views: String(i),
      }));
      const before = Number((await queryBuilder(t.context.db)('articles').count({ n: '*' }))[0]!.n);
      statements = [];
      const res = await post('/items/articles?fields=id,title,slug,rating', items);
      assert.equal(res.statusCode, 200, res.body.slice(0, 500));

      const columns = 5;
      const inserts = Math.ceil(ITEMS / Math.floor(t.context.db.dialect.write.maxParameters / columns));
      const kinds = statements.map((sql) => sql.split(' ')[0]!.toLowerCase());
      assert.equal(kinds.filter((k) => k === 'insert').length, inserts);
      // begin, the inserts, commit, and one re-read.
      assert.equal(statements.length, inserts + 3, statements.map((sql) => sql.slice(0, 200)).join('\n'));

      const data = json(res).data as { id: number; title: string; slug: string; rating: number }[];
      assert.equal(data.length, ITEMS);
      data.forEach((row, i) => {
        assert.equal(row.title, `Batch ${i}`);
        assert.equal(row.slug, `batch-${i}`);
        assert.equal(row.rating, i % 5);
      });
      assert.equal(new Set(data.map((r) => r.id)).size, ITEMS);
      assert.equal(Number((await queryBuilder(t.context.db)('articles').count({ n: '*' }))[0]!.n), before + ITEMS);
      const last = await queryBuilder(t.context.db)('articles')
        .where({ id: data[ITEMS - 1]!.id })
        .first();
      assert.equal(last.slug, `batch-${ITEMS - 1}`);
      assert.equal(String(last.views), String(ITEMS - 1));
    });

    it('answers more than 10,000 created items, read back in chunks of keys', async () => {
      const count = ITEMS + 1;
      statements = [];
      const res = await post(
        '/items/tags?fields=id,name',
        Array.from({ length: count }, (_, i) => ({ name: `chunk-${i}` })),
      );
      assert.equal(res.statusCode, 200, res.body.slice(0, 500));
      const selects = statements.filter((sql) => sql.startsWith('select'));
      assert.equal(selects.length, 2, selects.map((sql) => sql.slice(0, 300)).join('\n'));
      const data = json(res).data as { id: number; name: string }[];
      assert.equal(data.length, count);
      data.forEach((row, i) => assert.equal(row.name, `chunk-${i}`));
    });

    it('creates nested batches level by level: one INSERT per collection, each child under its own parent', async () => {
      const authors = Array.from({ length: 200 }, (_, i) => ({
        name: `Batch author ${i}`,
        articles: [{ title: `A${i} first`, tags: [{ tags_id: (i % 4) + 1 }] }, { title: `A${i} second` }],
      }));
      statements = [];
      const res = await post('/items/authors?fields=id,name', authors);
      assert.equal(res.statusCode, 200, res.body.slice(0, 500));
      assert.deepEqual(
        statements.map((sql) => sql.split(' ')[0]!.toLowerCase()),
        [t.context.db.dialect.write.begin.split(' ')[0], 'insert', 'insert', 'insert', 'commit', 'select'],
      );

      const created = json(res).data as { id: number; name: string }[];
      const articles = await queryBuilder(t.context.db)('articles')
        .whereIn(
          'author',
          created.map((a) => a.id),
        )
        .select('id', 'title', 'author');
      const byAuthor = new Map<number, string[]>();
      for (const row of articles)
        byAuthor.set(Number(row.author), [...(byAuthor.get(Number(row.author)) ?? []), row.title].sort());
      created.forEach((author, i) => {
        assert.equal(author.name, `Batch author ${i}`);
        assert.deepEqual(byAuthor.get(author.id), [`A${i} first`, `A${i} second`]);
      });
      const junction = await queryBuilder(t.context.db)('articles_tags')
        .join('articles', 'articles.id', 'articles_tags.articles_id')
        .whereIn(
          'articles.author',
          created.map((a) => a.id),
        )
        .select('articles.title', 'articles_tags.tags_id');
      assert.equal(junction.length, 200);
      for (const row of junction) assert.equal(Number(row.tags_id), (Number(/^A(\d+)/.exec(row.title)![1]) % 4) + 1);
    });
  });
}
