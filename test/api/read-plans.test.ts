/**
 * Plan shapes (not times): what the database does with the SQL Strata sends for a read, through EXPLAIN on each
 * database, over ten thousand generated articles by 200 authors (bench/bulk-load.ts) with indexes on the sort and foreign-key
 * columns. An indexed sort with a limit walks the index (forward and backward) and sorts nothing; an unindexed one
 * is a sort right under the limit (a top-N sort), with no window function over the whole table; nested lists reach
 * their rows through the foreign-key index; a date range uses the index on the date column, SQLite included.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bulkLoadArticles } from '../../bench/bulk-load.js';
import type { DbClient } from '../../src/config/config.js';
import { onEveryWorker, startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { queryBuilder } from '../../src/db/connection.js';

const ARTICLES = 10_000;
const AUTHORS = 200;
/** Columns beyond the index and the key, which a deep page must read from the rows. */
const DEEP_FIELDS = 'id,title,slug,status,rating,price,published_at,author';

/** One line per plan node (PostgreSQL), step (SQLite) or table access (MariaDB). */
async function explain(t: TestApp, client: DbClient, sql: string, params: unknown[]): Promise<string[]> {
  const db = t.context.db;
  if (client === 'pg')
    return (await db.query<Record<string, string>>(`explain (costs off) ${sql}`, params)).map((r) => r['QUERY PLAN']!);
  if (client === 'sqlite3')
    return (await db.query<{ detail: string }>(`explain query plan ${sql}`, params)).map((r) => r.detail);
  const rows = await db.query<Record<string, unknown>>(`explain ${sql}`, params);
  return rows.map((r) => `${r.select_type} table=${r.table} type=${r.type} key=${r.key} extra=${r.Extra ?? ''}`);
}

for (const client of testClients()) {
  describe(`read plans (${clientLabel(client)})`, () => {
    let t: TestApp;

    before(async () => {
      t = await startTestApp(client, {
        relations: true,
      });
      const k = queryBuilder(t.context.db);
      const indexes: [string, string][] = [['articles', 'published_at']];
      // InnoDB indexes foreign keys by itself; PostgreSQL and SQLite leave it to the user.
      if (client !== 'mysql') indexes.push(['articles', 'author'], ['articles_tags', 'articles_id']);
      for (const [table, column] of indexes)
        await k.raw('create index ?? on ?? (??)', [`${table}_${column}_index`, table, column]);
      // Enough authors that each has a small share of the articles (as in real data: the FK index then pays).
      const [{ first }] = await k('authors').max('id as first');
      const extra = Array.from({ length: AUTHORS }, (_, i) => ({
        id: Number(first) + 1 + i,
        name: `Author ${i}`,
        email: `author${i}@example.com`,
      }));
      await k('authors').insert(extra);
      if (client === 'pg')
        await k.raw(`select setval(pg_get_serial_sequence('authors', 'id'), (select max(id) from authors))`);
      const [{ articles }] = await k('articles').max('id as articles');
      const [{ authors }] = await k('authors').max('id as authors');
      const [{ tags }] = await k('tags').max('id as tags');
      const from = Number(articles) + 1;
      await bulkLoadArticles(k, client, {
        from,
        to: from + ARTICLES - 1,
        authors: Number(authors),
        tags: Number(tags),
        tagsPerArticle: 2,
      });
    });

    after(() => t?.close());

    /** The plan of the one statement Strata runs for `url` (which must answer 200). */
    async function planOf(url: string): Promise<string> {
      const statements: { sql: string; params: unknown[] }[] = [];
      const stop = onEveryWorker(t, ({ db }) =>
        db.onQuery((sql, params) => statements.push({ sql, params: [...params] })),
      );
      const response = await t.request({ method: 'GET', url });
      stop();
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(statements.length, 1, 'one statement per read');
      return (await explain(t, client, statements[0]!.sql, statements[0]!.params)).join('\n');
    }

    /** The plan walks `index` of articles (in `direction` where the database says so) and sorts no articles. */
    function assertIndexWalk(plan: string, index: string, direction: 'forward' | 'backward'): void {
      if (client === 'pg') {
        assert.match(
          plan,
          new RegExp(`Index Scan${direction === 'backward' ? ' Backward' : ''} using ${index} on articles t0`),
          plan,
        );
        assert.doesNotMatch(plan, /Sort Key: t0\./, plan);
      } else if (client === 'sqlite3') {
        assert.match(plan, new RegExp(`SCAN t0 USING INDEX ${index}\\b`), plan);
        assert.doesNotMatch(plan, /USE TEMP B-TREE FOR ORDER BY/, plan);
      } else {
        assert.match(plan, new RegExp(`DERIVED table=t0 type=index key=${index} extra=(?!.*filesort)`), plan);
      }
      assert.doesNotMatch(plan, /WindowAgg|row_number|window/i, plan);
    }

    it('walks an index on the sort column backward for sort=-field + limit', async () => {
      assertIndexWalk(
        await planOf('/items/articles?fields=id,title&sort=-published_at&limit=25'),
        'articles_published_at_index',
        'backward',
      );
    });

    it('walks it forward for an ascending sort, and for a deep page', async () => {
      assertIndexWalk(
        await planOf('/items/articles?fields=id,title&sort=published_at&limit=25'),
        'articles_published_at_index',
        'forward',
      );
      assertIndexWalk(
        await planOf('/items/articles?fields=id,title&sort=-published_at&limit=10&page=10'),
        'articles_published_at_index',
        'backward',
      );
    });

    it('walks it for a page deep in the table, MariaDB included (the keys first, then the rows by key)', async () => {
      // Offset 4,990 of 10,000+ rows: MariaDB prices that many index-ordered row reads above sorting the whole table.
      const plan = await planOf(`/items/articles?fields=${DEEP_FIELDS}&sort=-published_at&limit=10&page=500`);
      assertIndexWalk(plan, 'articles_published_at_index', 'backward');
      if (client === 'mysql') {
        // The page's keys from the index alone; its ten rows by primary key; nothing sorted but those ten.
        assert.match(plan, /DERIVED table=t0 type=index key=articles_published_at_index extra=Using index$/m, plan);
        assert.match(plan, /table=t0 type=eq_ref key=PRIMARY/, plan);
        assert.doesNotMatch(plan, /table=t0 type=ALL/, plan);
      }
    });

    it('keeps walking it under a filter on another column', async () => {
      assertIndexWalk(
        await planOf('/items/articles?fields=id,title&filter[status][_eq]=published&sort=-published_at&limit=100'),
        'articles_published_at_index',
        'backward',
      );
    });

    it('sorts right under the limit (a top-N sort) where no index serves the sort, with no window over the table', async () => {
      const plan = await planOf('/items/articles?fields=id,title&sort=-score&limit=25');
      assert.doesNotMatch(plan, /WindowAgg|row_number|window/i, plan);
      if (client === 'pg')
        assert.match(plan, /Limit\n\s*->\s+Sort\n\s*Sort Key: t0\.score DESC\n\s*->\s+Seq Scan on articles t0/, plan);
      else if (client === 'sqlite3') assert.match(plan, /SCAN t0\nUSE TEMP B-TREE FOR ORDER BY/, plan);
      else assert.match(plan, /DERIVED table=t0 type=ALL key=null extra=Using filesort/, plan);
    });

    it('reads nested o2m and m2m lists through the foreign-key index', async () => {
      const o2m = await planOf(
        '/items/authors?fields=id,articles.id,articles.title,articles.tags.tags_id.name&deep[articles][_limit]=5&deep[articles][_sort]=-published_at&limit=3',
      );
      const m2m = await planOf('/items/articles?fields=id,tags.tags_id.name&limit=10');
      if (client === 'pg') {
        assert.match(o2m, /(Index Scan|Bitmap Index Scan) (using|on) articles_author_index/, o2m);
        assert.match(m2m, /(Index Scan|Bitmap Index Scan) (using|on) articles_tags_articles_id_index/, m2m);
      } else if (client === 'sqlite3') {
        assert.match(o2m, /SEARCH t1 USING INDEX articles_author_index \(author=\?\)/, o2m);
        assert.match(m2m, /SEARCH t1 USING INDEX articles_tags_articles_id_index \(articles_id=\?\)/, m2m);
      } else {
        // The kept keys come from the FK index; the kept rows (whose elements hold nested levels) by primary key.
        assert.match(o2m, /table=t1 type=ref key=articles_author_foreign/, o2m);
        assert.match(o2m, /table=t1 type=eq_ref key=PRIMARY/, o2m);
        assert.match(m2m, /table=t1 type=ref key=articles_tags_articles_id_foreign/, m2m);
      }
    });

    it('filters a date range through the index on the date column (SQLite included)', async () => {
      const plan = await planOf(
        '/items/articles?fields=id&filter[published_at][_between]=2020-01-01,2020-01-31&limit=-1',
      );
      if (client === 'pg')
        assert.match(plan, /(Index Scan|Bitmap Index Scan) (using|on) articles_published_at_index/, plan);
      else if (client === 'sqlite3')
        assert.match(
          plan,
          /SEARCH t0 USING (COVERING )?INDEX articles_published_at_index \(published_at>\? AND published_at<\?\)/,
          plan,
        );
      else assert.match(plan, /table=t0 type=range key=articles_published_at_index/, plan);
    });
  });
}
