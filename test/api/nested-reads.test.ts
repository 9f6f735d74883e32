/**
 * Nested relational reads over HTTP on every database this run can reach: m2o, o2m, m2m, m2a, deep, relational
 * filters and sorts, function fields, alias, aggregates — and one SQL statement per read.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import qs from 'qs';
import { clientLabel, knexFor, nullsSortLargest, testClients } from '../helpers/test-db.js';
import { errorCode, json, onEveryWorker, startTestApp, type TestApp } from '../helpers/test-app.js';

for (const client of testClients()) {
  describe(`nested reads (${clientLabel(client)})`, () => {
    let t: TestApp;
    const get = async (path: string, query: Record<string, unknown> = {}) => {
      const search = qs.stringify(query, { encodeValuesOnly: true });
      return t.request({ method: 'GET', url: `${path}${search ? `?${search}` : ''}` });
    };
    const data = async (path: string, query: Record<string, unknown> = {}) => {
      const response = await get(path, query);
      assert.equal(response.statusCode, 200, response.body);
      return json(response).data;
    };

    before(async () => {
      t = await startTestApp(client, { relations: true });
      // A prolific author: 300 articles, for limits per parent.
      const k = knexFor(t.testDb);
      try {
        await k('authors').insert({ name: 'Prolific', active: true });
        const { id } = await k('authors').where({ name: 'Prolific' }).first('id');
        const rows = Array.from({ length: 300 }, (_, i) => ({
          title: `Bulk ${String(i).padStart(3, '0')}`,
          status: 'draft',
          author: id,
          rating: i % 5,
        }));
        for (let i = 0; i < rows.length; i += 100) await k('articles').insert(rows.slice(i, i + 100));
      } finally {
        await k.destroy();
      }
    });
    after(async () => {
      await t?.close();
    });

    it('returns keys for relational fields that are not expanded, and objects and arrays when they are', async () => {
      assert.deepEqual(await data('/items/articles/1', { fields: 'id,author,tags' }), {
        id: 1,
        author: 1,
        tags: [1, 2],
      });
      assert.deepEqual(await data('/items/articles/1', { fields: 'id,author.name,author.id,tags.tags_id.name' }), {
        id: 1,
        author: { name: 'Ada Lovelace', id: 1 },
        tags: [{ tags_id: { name: 'science' } }, { tags_id: { name: 'computing' } }],
      });
      assert.deepEqual(await data('/items/articles/6', { fields: 'id,author.name' }), { id: 6, author: null });
      assert.deepEqual(await data('/items/tags/4', { fields: 'name,articles.articles_id.title' }), {
        name: 'unused',
        articles: [],
      });
      const authors = await data('/items/authors', {
        fields: 'name,articles.title',
        filter: { id: { _lte: 3 } },
        deep: { articles: { _sort: 'id' } },
      });
      assert.deepEqual(authors, [
        { name: 'Ada Lovelace', articles: [{ title: 'Hello World' }, { title: 'Second Post' }] },
        { name: 'Alan Turing', articles: [{ title: 'Draft Ideas' }, { title: 'Machines Thinking' }] },
        { name: 'Grace Hopper', articles: [{ title: 'Compilers' }] },
      ]);
    });

    it('expands every relation one level with *.* and includes o2m keys with *', async () => {
      const [author] = await data('/items/authors', { fields: '*', limit: 1 });
      assert.deepEqual(author, {
        id: 1,
        name: 'Ada Lovelace',
        email: 'ada@example.com',
        bio: 'Mathematician',
        active: true,
        joined: '1815-12-10',
        articles: [1, 2],
      });
      const [article] = await data('/items/articles', { fields: '*.*', limit: 1 });
      assert.equal(article.author.name, 'Ada Lovelace');
      assert.deepEqual(
        article.tags.map((tag: { tags_id: number }) => tag.tags_id),
        [1, 3],
      );
      assert.equal(article.title, 'Hello World');
      const [deeper] = await data('/items/articles', { fields: '*.*.*', limit: 1 });
      assert.equal(deeper.tags[0].tags_id.name, 'science');
    });

    it('limits and sorts o2m lists per parent in SQL, with deep _limit, _offset, _page, _sort, _filter and _search', async () => {
      const [prolific] = await data('/items/authors', {
        fields: 'id,articles.title',
        filter: { name: { _eq: 'Prolific' } },
        deep: { articles: { _limit: 2, _sort: '-title' } },
      });
      assert.deepEqual(prolific.articles, [{ title: 'Bulk 299' }, { title: 'Bulk 298' }]);
      const [paged] = await data('/items/authors', {
        fields: 'articles.title',
        filter: { name: { _eq: 'Prolific' } },
        deep: { articles: { _limit: 3, _page: 2, _sort: 'title' } },
      });
      assert.deepEqual(paged.articles, [{ title: 'Bulk 003' }, { title: 'Bulk 004' }, { title: 'Bulk 005' }]);
      const [offset] = await data('/items/authors', {
        fields: 'articles',
        filter: { name: { _eq: 'Prolific' } },
        deep: { articles: { _limit: 1, _offset: 299 } },
      });
      assert.equal(offset.articles.length, 1);
      // Without deep: QUERY_LIMIT_DEFAULT (100) per parent, by key.
      const all = await data('/items/authors', { fields: 'name,articles', sort: 'id' });
      assert.deepEqual(
        all.map((a: { articles: unknown[] }) => a.articles.length),
        [2, 2, 1, 100],
      );
      const [filtered] = await data('/items/authors', {
        fields: 'articles.title',
        filter: { name: { _eq: 'Prolific' } },
        deep: { articles: { _filter: { rating: { _eq: 4 } }, _search: 'Bulk 29', _sort: 'title' } },
      });
      assert.deepEqual(filtered.articles, [{ title: 'Bulk 294' }, { title: 'Bulk 299' }]);
      const [nested] = await data('/items/authors', {
        fields: 'articles.tags.tags_id.name',
        filter: { id: { _eq: 1 } },
        deep: { articles: { _limit: 1, tags: { _limit: 1, _sort: '-id' } } },
      });
      assert.deepEqual(nested, { articles: [{ tags: [{ tags_id: { name: 'computing' } }] }] });
    });

    it('scopes m2a items per collection, applies unscoped fields to every allowed collection, and keeps order by the sort field', async () => {
      const pages = await data('/items/pages', {
        fields: 'title,sections.collection,sections.item:headings.text,sections.item:paragraphs.body',
        sort: 'id',
      });
      assert.deepEqual(pages, [
        {
          title: 'Home',
          sections: [
            { collection: 'headings', item: { text: 'Welcome' } },
            { collection: 'paragraphs', item: { body: 'Hello there.' } },
          ],
        },
        {
          title: 'About',
          sections: [
            { collection: 'headings', item: { text: 'Our story' } },
            { collection: 'paragraphs', item: { body: 'We began in a garage.' } },
            { collection: 'paragraphs', item: { body: 'Hello there.' } },
          ],
        },
        { title: 'Empty', sections: [] },
      ]);
      const [home] = await data('/items/pages', { fields: 'sections.item.id', sort: 'id', limit: 1 });
      assert.deepEqual(home.sections, [{ item: { id: 1 } }, { item: { id: 1 } }]);
      const [onlyHeadings] = await data('/items/pages', { fields: 'sections.item:headings.level', limit: 1 });
      assert.deepEqual(onlyHeadings.sections, [{ item: { level: 1 } }, { item: '1' }]);
      assert.deepEqual(await data('/items/pages/1', { fields: 'sections' }), { sections: [1, 2] });
      assert.equal(errorCode(await get('/items/pages', { fields: 'sections.item.text' })), 'FORBIDDEN');
      assert.equal(errorCode(await get('/items/pages', { fields: 'sections.item:nope.id' })), 'FORBIDDEN');
      assert.equal(errorCode(await get('/items/pages', { fields: 'sections.item:headings.nope' })), 'FORBIDDEN');
    });

    it('filters through m2o, o2m (_some, _none, bare), m2m and m2a paths, composed with _and/_or, without inflating counts', async () => {
      const ids = async (path: string, query: Record<string, unknown>) =>
        (await data(path, { fields: 'id', sort: 'id', ...query })).map((r: { id: number }) => r.id);
      assert.deepEqual(await ids('/items/articles', { filter: { author: { name: { _eq: 'Alan Turing' } } } }), [3, 4]);
      assert.deepEqual(
        await ids('/items/authors', { filter: { articles: { _some: { status: { _eq: 'archived' } } } } }),
        [3],
      );
      assert.deepEqual(await ids('/items/authors', { filter: { articles: { status: { _eq: 'archived' } } } }), [3]);
      assert.deepEqual(
        await ids('/items/authors', { filter: { articles: { _none: { status: { _eq: 'draft' } } } } }),
        [1, 3],
      );
      // Both rules on the same related row.
      assert.deepEqual(
        await ids('/items/authors', { filter: { articles: { status: { _eq: 'published' }, rating: { _gte: 4 } } } }),
        [1, 2],
      );
      assert.deepEqual(
        await ids('/items/articles', {
          filter: {
            _or: [{ tags: { tags_id: { name: { _eq: 'history' } } } }, { author: { active: { _eq: false } } }],
          },
        }),
        [2, 5],
      );
      assert.deepEqual(
        await ids('/items/pages', { filter: { sections: { 'item:headings': { level: { _eq: 2 } } } } }),
        [2],
      );
      assert.deepEqual(
        await ids('/items/pages', { filter: { sections: { _none: { collection: { _eq: 'paragraphs' } } } } }),
        [3],
      );
      // Article 1 and 4 each have two tags matching: still counted once.
      const response = json(
        await get('/items/articles', {
          fields: 'id',
          filter: { tags: { tags_id: { name: { _in: ['science', 'computing'] } } } },
          meta: '*',
        }),
      );
      assert.deepEqual(
        response.data.map((r: { id: number }) => r.id),
        [1, 4, 5],
      );
      assert.deepEqual(response.meta, { total_count: 306, filter_count: 3 });
      const grouped = await data('/items/articles', {
        aggregate: { count: '*' },
        filter: { tags: { tags_id: { name: { _in: ['science', 'computing'] } } } },
      });
      assert.deepEqual(grouped, [{ count: 3 }]);
    });

    it('sorts by m2o paths and function fields, and reads function fields with Directus keys', async () => {
      const rows = await data('/items/articles', {
        fields: 'id',
        filter: { id: { _lte: 6 } },
        sort: '-author.name,id',
      });
      // Article 6 has no author: NULL sorts where the database puts it.
      assert.deepEqual(
        rows.map((r: { id: number }) => r.id),
        nullsSortLargest(client) ? [6, 5, 3, 4, 1, 2] : [5, 3, 4, 1, 2, 6],
      );
      const dated = await data('/items/articles', {
        fields:
          'id,year(publish_date),month(publish_date),day(publish_date),weekday(publish_date),week(publish_date),hour(published_at),minute(updated_at),second(published_at),count(tags),count(metadata)',
        filter: { id: { _in: [1, 3, 4] } },
        sort: 'id',
      });
      assert.deepEqual(dated, [
        {
          id: 1,
          publish_date_year: 2024,
          publish_date_month: 1,
          publish_date_day: 15,
          publish_date_weekday: 1,
          publish_date_week: 3,
          published_at_hour: 10,
          updated_at_minute: 30,
          published_at_second: 0,
          tags_count: 2,
          metadata_count: null,
        },
        {
          id: 3,
          publish_date_year: null,
          publish_date_month: null,
          publish_date_day: null,
          publish_date_weekday: null,
          publish_date_week: null,
          published_at_hour: null,
          updated_at_minute: null,
          published_at_second: null,
          tags_count: 0,
          metadata_count: null,
        },
        {
          id: 4,
          publish_date_year: 2024,
          publish_date_month: 3,
          publish_date_day: 1,
          publish_date_weekday: 5,
          publish_date_week: 9,
          published_at_hour: 12,
          updated_at_minute: 0,
          published_at_second: 0,
          tags_count: 2,
          metadata_count: 3,
        },
      ]);
      const byYear = await data('/items/articles', {
        fields: 'id',
        filter: { _and: [{ 'year(publish_date)': { _eq: 2023 } }, { 'count(tags)': { _gte: 1 } }] },
      });
      assert.deepEqual(byYear, [{ id: 5 }]);
      const byMonth = await data('/items/articles', {
        fields: 'id',
        filter: { id: { _lte: 6 }, publish_date: { _nnull: true } },
        sort: '-month(publish_date),id',
      });
      assert.deepEqual(
        byMonth.map((r: { id: number }) => r.id),
        [5, 4, 6, 2, 1],
      );
    });

    it('reads aliases, including the same relation twice with different deep queries and function values', async () => {
      const [author] = await data('/items/authors', {
        fields: 'name,first.title,last.title',
        alias: { first: 'articles', last: 'articles' },
        deep: { first: { _limit: 1, _sort: 'id' }, last: { _limit: 1, _sort: '-id' } },
        limit: 1,
      });
      assert.deepEqual(author, {
        name: 'Ada Lovelace',
        first: [{ title: 'Hello World' }],
        last: [{ title: 'Second Post' }],
      });
      assert.deepEqual(
        await data('/items/articles/1', {
          fields: 'id,writer.name,yr',
          alias: { writer: 'author', yr: 'year(publish_date)' },
        }),
        { id: 1, writer: { name: 'Ada Lovelace' }, yr: 2024 },
      );
    });

    it('aggregates with groupBy on fields, function fields and m2o paths, sorted by groups or aggregates', async () => {
      const where = { filter: { id: { _lte: 6 } } };
      assert.deepEqual(await data('/items/articles', { aggregate: { count: '*' }, ...where }), [{ count: 6 }]);
      assert.deepEqual(
        await data('/items/articles', {
          aggregate: {
            count: 'rating',
            countDistinct: 'status',
            sum: 'rating,views,price',
            min: 'publish_date',
            max: 'price',
            avg: 'rating',
            countAll: '*',
          },
          ...where,
        }),
        [
          {
            count: { rating: 5 },
            countDistinct: { status: 3 },
            sum: { rating: 15, views: '9007199254743642', price: '125.39' },
            min: { publish_date: '2023-06-30' },
            max: { price: '100.00' },
            avg: { rating: 3 },
            countAll: 6,
          },
        ],
      );
      // min/max on a key beside another aggregate, unfiltered (MariaDB 10.11 once read them as null there).
      assert.deepEqual(
        await data('/items/tags', {
          aggregate: { count: '*', min: 'id,name', max: 'id' },
          filter: { id: { _lte: 4 } },
        }),
        [{ count: 4, min: { id: 1, name: 'computing' }, max: { id: 4 } }],
      );
      assert.deepEqual(await data('/items/authors', { aggregate: { countDistinct: 'id', min: 'id' } }), [
        { countDistinct: { id: 4 }, min: { id: 1 } },
      ]);
      assert.deepEqual(
        await data('/items/articles', { aggregate: { count: '*', avg: 'rating' }, groupBy: 'status', ...where }),
        [
          { status: 'archived', count: 1, avg: { rating: 2 } },
          { status: 'draft', count: 1, avg: { rating: null } },
          { status: 'published', count: 4, avg: { rating: 3.25 } },
        ],
      );
      assert.deepEqual(
        await data('/items/articles', {
          aggregate: { count: '*' },
          groupBy: ['author.name', 'year(publish_date)'],
          sort: '-count',
          ...where,
          filter: { id: { _lte: 6 }, author: { _nnull: true } },
        }),
        [
          { author: { name: 'Ada Lovelace' }, publish_date_year: 2024, count: 2 },
          ...(nullsSortLargest(client)
            ? [
                { author: { name: 'Alan Turing' }, publish_date_year: 2024, count: 1 },
                { author: { name: 'Alan Turing' }, publish_date_year: null, count: 1 },
              ]
            : [
                { author: { name: 'Alan Turing' }, publish_date_year: null, count: 1 },
                { author: { name: 'Alan Turing' }, publish_date_year: 2024, count: 1 },
              ]),
          { author: { name: 'Grace Hopper' }, publish_date_year: 2023, count: 1 },
        ],
      );
      assert.deepEqual(
        await data('/items/articles', { aggregate: { count: '*' }, groupBy: 'author', sort: '-count', limit: 1 }),
        [{ author: 4, count: 300 }],
      );
    });

    it('answers bad nested queries with INVALID_QUERY or FORBIDDEN naming the problem', async () => {
      const reason = async (query: Record<string, unknown>, path = '/items/articles') => {
        const response = await get(path, query);
        const error = json(response).errors[0];
        return `${response.statusCode} ${error.extensions.code} ${error.extensions.reason ?? error.message}`;
      };
      assert.match(
        await reason({ fields: 'author.nope' }),
        /^403 FORBIDDEN .*"nope" in collection "authors".*Queried in author/,
      );
      assert.match(await reason({ filter: { author: { nope: { _eq: 1 } } } }), /^403 FORBIDDEN .*"nope"/);
      assert.match(await reason({ sort: 'title.name' }), /^400 INVALID_QUERY .*many-to-one/);
      assert.match(await reason({ sort: 'tags.name' }), /^403 FORBIDDEN .*"name" in collection "articles_tags"/);
      assert.match(await reason({ deep: { tags: { _limit: 'x' } } }), /^400 INVALID_QUERY .*_limit/);
      assert.match(await reason({ fields: 'a.b.c.d.e.f.g.h.i.j.k' }), /^400 INVALID_QUERY .*depth/);
      assert.match(
        await reason({
          deep: JSON.stringify({
            tags: {
              tags_id: {
                articles: {
                  articles_id: {
                    tags: {
                      tags_id: { articles: { articles_id: { tags: { tags_id: { articles: { _limit: 1 } } } } } },
                    },
                  },
                },
              },
            },
          }),
        }),
        /^400 INVALID_QUERY .*depth/,
      );
      assert.match(await reason({ filter: { published: { _gt: true } } }), /^400 INVALID_QUERY .*"_gt".*boolean/);
      assert.match(
        await reason({ filter: { tags: { _some: { nope: { _eq: 1 } } } } }),
        /^403 FORBIDDEN .*"nope" in collection "articles_tags"/,
      );
      assert.match(
        await reason({ filter: { author: { _none: { name: { _eq: 'x' } } } } }),
        /^400 INVALID_QUERY .*_none/,
      );
      assert.match(await reason({ fields: 'year(title)' }), /^400 INVALID_QUERY .*year/);
      assert.match(await reason({ fields: 'count(title)' }), /^400 INVALID_QUERY .*count/);
      assert.match(await reason({ aggregate: { median: 'rating' } }), /^400 INVALID_QUERY .*median/);
      assert.match(await reason({ aggregate: { sum: 'title' } }), /^400 INVALID_QUERY .*numeric/);
      assert.match(await reason({ aggregate: { count: '*' }, groupBy: 'nope' }), /^403 FORBIDDEN .*"nope"/);
      assert.match(
        await reason({ aggregate: { count: '*' }, groupBy: 'status', sort: 'title' }),
        /^400 INVALID_QUERY .*sort/,
      );
      assert.match(
        await reason({ filter: { sections: { item: { text: { _eq: 'x' } } } } }, '/items/pages'),
        /^400 INVALID_QUERY .*scope/,
      );
    });

    it('ignores deep keys Directus ignores: unknown parameters, non-relational, unknown or unselected fields', async () => {
      const query = { fields: 'id,title,tags.tags_id.name', filter: { id: { _lte: 3 } }, sort: 'id' };
      const plain = await get('/items/articles', query);
      assert.equal(plain.statusCode, 200, plain.body);
      for (const deep of [
        { tags: { _bogus: 1, _limit: 50 } },
        { nope: { _limit: 1 } },
        { title: { _limit: 1 } },
        { author: { _limit: 1 } },
        { _limit: 1 },
        { tags: 'x' },
        { tags: { tags_id: { _nope: true } } },
      ]) {
        for (const form of [deep, JSON.stringify(deep)]) {
          const response = await get('/items/articles', { ...query, deep: form });
          assert.equal(response.statusCode, 200, `${JSON.stringify(deep)}: ${response.body}`);
          assert.deepEqual(json(response).data, json(plain).data, JSON.stringify(deep));
        }
      }
      // What is known is still applied, and bad values of known parameters stay errors.
      const limited = await get('/items/articles', { ...query, deep: { tags: { _limit: 1, _bogus: 1 }, nope: {} } });
      assert.equal(limited.statusCode, 200, limited.body);
      assert.ok(json(limited).data.every((row: { tags: unknown[] }) => row.tags.length <= 1));
    });

    it('reads empty and Number() forms of parameters as Directus does', async () => {
      const url = async (search: string) => {
        const response = await t.request({
          method: 'GET',
          url: `/items/articles?fields=id&sort=id&filter[id][_lte]=3&${search}`,
        });
        assert.equal(response.statusCode, 200, `${search}: ${response.body}`);
        return json(response).data.map((row: { id: number }) => row.id);
      };
      for (const search of [
        'deep=',
        'deep={bad',
        'deep=[1]',
        'alias=',
        'aggregate=',
        'groupBy=',
        'page=',
        'offset=',
        'fields=&sort=',
      ]) {
        assert.deepEqual(await url(search), [1, 2, 3], search);
      }
      assert.deepEqual(await url('limit='), []);
      assert.deepEqual(await url('limit=2e0&offset=1.0'), [2, 3]);
      for (const search of ['limit=1.5', 'limit=x', 'alias={bad', 'aggregate={bad', 'filter={bad']) {
        const response = await t.request({ method: 'GET', url: `/items/articles?${search}` });
        assert.equal(`${response.statusCode} ${errorCode(response)}`, '400 INVALID_QUERY', search);
      }
    });

    it('runs one SQL statement per read, three levels deep with counts', async () => {
      const statements: string[] = [];
      // Whichever worker answers: in pair mode every worker's connection is counted.
      const stop = onEveryWorker(t, ({ db }) => db.onQuery((sql: string) => statements.push(sql)));
      try {
        const response = await get('/items/authors', {
          fields: 'name,articles.title,articles.tags.tags_id.name,articles.author.name',
          filter: { articles: { tags: { tags_id: { name: { _eq: 'science' } } } } },
          deep: { articles: { _limit: 2, tags: { _limit: 1 } } },
          meta: '*',
        });
        assert.equal(response.statusCode, 200, response.body);
        assert.equal(json(response).data[0].articles[0].tags[0].tags_id.name, 'science');
      } finally {
        stop();
      }
      assert.equal(statements.length, 1, statements.join('\n'));
    });
  });
}
