/**
 * GraphQL reads over /graphql on every database: the same questions asked through REST and GraphQL give the same
 * data (lists, by id, nested m2o/o2m/m2m, m2a unions, filters, aggregates), aliases with different arguments,
 * fragments and variables, and one SQL statement per root field.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { assertSame, gql, gqlData, rest, restAsGraphql } from './helpers.js';

for (const client of testClients()) {
  describe(`GraphQL reads (${clientLabel(client)})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(client, { relations: true });
    });
    after(async () => {
      await t?.close();
    });

    it('lists items with filter, sort, limit, offset and search as REST does', async () => {
      const fields = 'id title status rating views price score published publish_date published_at metadata uid';
      const data = await gqlData(
        t,
        `{ articles(filter: {status: {_eq: "published"}}, sort: ["-rating", "id"], limit: 3, offset: 1) { ${fields} } }`,
      );
      const expected = await restAsGraphql(t, '/items/articles', {
        fields: fields.split(' ').join(','),
        filter: { status: { _eq: 'published' } },
        sort: '-rating,id',
        limit: 3,
        offset: 1,
      });
      assert.equal(data.articles.length, 3);
      assertSame(data.articles, expected);
      const searched = await gqlData(t, '{ articles(search: "hello") { id title } }');
      assertSame(searched.articles, await restAsGraphql(t, '/items/articles', { fields: 'id,title', search: 'hello' }));
      const paged = await gqlData(t, '{ articles(limit: 2, page: 2, sort: ["id"]) { id } }');
      assertSame(
        paged.articles,
        await restAsGraphql(t, '/items/articles', { fields: 'id', limit: 2, page: 2, sort: 'id' }),
      );
    });

    it('takes variables of the recursive filter types (graphql-jit alone ran out of memory compiling them)', async () => {
      const query =
        'query Q($f: articles_filter, $s: [String]) { articles(filter: $f, sort: $s) { id title author { name } } }';
      const filter = {
        _and: [
          { status: { _eq: 'published' } },
          { _or: [{ author: { name: { _eq: 'Ada Lovelace' } } }, { id: { _eq: 3 } }] },
        ],
      };
      const data = await gqlData(t, query, { variables: { f: filter, s: ['-id'] } });
      const expected = await restAsGraphql(t, '/items/articles', {
        fields: 'id,title,author.name',
        filter,
        sort: '-id',
      });
      assertSame(data.articles, expected);
      assert.ok(data.articles.length > 0);
      const wrong = await gql(t, query, { variables: { f: { _and: [{ nope: { _eq: 1 } }] } } });
      assert.ok(wrong.body.errors?.length, JSON.stringify(wrong.body));
    });

    it('reads one item by id; a missing one is FORBIDDEN beside the data, with HTTP 200', async () => {
      const data = await gqlData(t, '{ articles_by_id(id: 1) { id title author { name } } }');
      assertSame(data.articles_by_id, await restAsGraphql(t, '/items/articles/1', { fields: 'id,title,author.name' }));
      assert.equal(data.articles_by_id.id, '1', 'integer keys are IDs, serialised as strings');
      const missing = await gql(t, '{ ok: articles_by_id(id: 1) { id } missing: articles_by_id(id: 999999) { id } }');
      assert.equal(missing.status, 200);
      assert.deepEqual(missing.body.data, { ok: { id: '1' }, missing: null });
      assert.equal(missing.body.errors.length, 1);
      assert.equal(missing.body.errors[0].extensions.code, 'FORBIDDEN');
      assert.deepEqual(missing.body.errors[0].path, ['missing']);
    });

    it('reads nested m2o, o2m and m2m levels with nested arguments as REST deep does', async () => {
      const data = await gqlData(
        t,
        '{ authors(sort: ["id"]) { id name articles(sort: ["-id"], limit: 2, filter: {status: {_neq: "draft"}}) { id title tags { tags_id { name } } } } }',
      );
      const expected = await restAsGraphql(t, '/items/authors', {
        fields: 'id,name,articles.id,articles.title,articles.tags.tags_id.name',
        sort: 'id',
        deep: { articles: { _sort: '-id', _limit: 2, _filter: { status: { _neq: 'draft' } } } },
      });
      assertSame(data.authors, expected);
      assert.ok(data.authors.some((a: { articles: unknown[] }) => a.articles.length === 2));

      // Only the related key of an o2m: read as REST's key list, answered as objects.
      const keys = await gqlData(t, '{ authors(sort: ["id"]) { id articles(sort: ["-id"], limit: 2) { id } } }');
      const restKeys = (await rest(t, '/items/authors', {
        fields: 'id,articles',
        sort: 'id',
        deep: { articles: { _sort: '-id', _limit: 2 } },
      })) as { id: number; articles: number[] }[];
      assertSame(
        keys.authors,
        restKeys.map((a) => ({ id: String(a.id), articles: a.articles.map((id) => ({ id: String(id) })) })),
      );
      assert.ok(keys.authors.some((a: { articles: unknown[] }) => a.articles.length === 2));
    });

    it('reads m2a items as a union selected with fragments', async () => {
      const data = await gqlData(
        t,
        '{ pages(sort: ["id"]) { id sections { collection item { __typename ... on headings { text level } ... on paragraphs { body } } } } }',
      );
      const expected = (await restAsGraphql(t, '/items/pages', {
        fields:
          'id,sections.collection,sections.item:headings.text,sections.item:headings.level,sections.item:paragraphs.body',
        sort: 'id',
      })) as {
        sections: { collection: string; item: Record<string, unknown> }[];
      }[];
      const withTypes = expected.map((page) => ({
        ...page,
        sections: page.sections.map((s) => ({ ...s, item: { __typename: s.collection, ...s.item } })),
      }));
      assertSame(data.pages, withTypes);
      assert.equal(data.pages[0].sections[0].item.__typename, 'headings');
    });

    it('filters through m2o, o2m quantifiers, m2m, m2a and function fields as REST does', async () => {
      const cases: [string, Record<string, unknown>][] = [
        ['{author: {name: {_eq: "Ada Lovelace"}}}', { author: { name: { _eq: 'Ada Lovelace' } } }],
        [
          '{tags: {_some: {tags_id: {name: {_eq: "science"}}}}}',
          { tags: { _some: { tags_id: { name: { _eq: 'science' } } } } },
        ],
        [
          '{tags: {_none: {tags_id: {name: {_eq: "science"}}}}}',
          { tags: { _none: { tags_id: { name: { _eq: 'science' } } } } },
        ],
        [
          '{_or: [{rating: {_gte: 4}}, {price: {_null: true}}]}',
          { _or: [{ rating: { _gte: 4 } }, { price: { _null: true } }] },
        ],
        ['{publish_date_func: {year: {_eq: 2024}}}', { 'year(publish_date)': { _eq: 2024 } }],
        ['{tags_func: {count: {_gte: 2}}}', { 'count(tags)': { _gte: 2 } }],
        ['{id: {_in: [1, 3, 4]}}', { id: { _in: [1, 3, 4] } }],
      ];
      for (const [graphqlFilter, restFilter] of cases) {
        const data = await gqlData(t, `{ articles(filter: ${graphqlFilter}, sort: ["id"]) { id } }`);
        const expected = await restAsGraphql(t, '/items/articles', { fields: 'id', filter: restFilter, sort: 'id' });
        assertSame(data.articles, expected, graphqlFilter);
      }
      const pages = await gqlData(
        t,
        '{ pages(filter: {sections: {_some: {item__paragraphs: {body: {_contains: "garage"}}}}}) { id } }',
      );
      assertSame(
        pages.pages,
        await restAsGraphql(t, '/items/pages', {
          fields: 'id',
          filter: { sections: { _some: { 'item:paragraphs': { body: { _contains: 'garage' } } } } },
        }),
      );
      assert.equal(pages.pages.length, 1);
    });

    it('reads function fields', async () => {
      const data = await gqlData(
        t,
        '{ articles(sort: ["id"], limit: 4) { id publish_date_func { year month day weekday week } published_at_func { hour } tags_func { count } } }',
      );
      const expected = (await rest(t, '/items/articles', {
        fields:
          'id,year(publish_date),month(publish_date),day(publish_date),weekday(publish_date),week(publish_date),hour(published_at),count(tags)',
        sort: 'id',
        limit: 4,
      })) as Record<string, unknown>[];
      assertSame(
        data.articles,
        expected.map((row) => ({
          id: String(row.id),
          publish_date_func: {
            year: row.publish_date_year,
            month: row.publish_date_month,
            day: row.publish_date_day,
            weekday: row.publish_date_weekday,
            week: row.publish_date_week,
          },
          published_at_func: { hour: row.published_at_hour },
          tags_func: { count: row.tags_count },
        })),
      );
    });

    it('aggregates with groupBy as REST does', async () => {
      const data = await gqlData(
        t,
        '{ articles_aggregated(groupBy: ["status"], filter: {id: {_lte: 6}}) { group countAll count { rating } sum { rating } avg { rating } max { price } } }',
      );
      const expected = (await rest(t, '/items/articles', {
        aggregate: { countAll: '*', count: 'rating', sum: 'rating', avg: 'rating', max: 'price' },
        groupBy: 'status',
        filter: { id: { _lte: 6 } },
      })) as Record<string, unknown>[];
      assertSame(
        data.articles_aggregated,
        // REST sends the decimal price as a string; GraphQL's aggregate fields are Floats.
        expected.map(({ status, countAll, count, sum, avg, max }) => ({
          group: { status },
          countAll,
          count,
          sum,
          avg,
          max: {
            price: (max as { price: string | null }).price === null ? null : Number((max as { price: string }).price),
          },
        })),
      );
      const total = await gqlData(t, '{ articles_aggregated { countAll countDistinct { status } } }');
      assertSame(total.articles_aggregated, [
        {
          countAll: (await rest(t, '/items/articles', { aggregate: { countAll: '*' } }))[0].countAll,
          countDistinct: { status: 3 },
        },
      ]);
    });

    it('answers aliases of the same relation with different arguments, fragments, variables and directives', async () => {
      const query = `
        query Q($id: ID!, $limit: Int, $withTags: Boolean!) {
          first: authors_by_id(id: $id) { ...who newest: articles(sort: ["-id"], limit: $limit) { id } oldest: articles(sort: ["id"], limit: 1) { id t: title } }
          tagged: articles_by_id(id: 1) { id tags @include(if: $withTags) { tags_id { name } } author @skip(if: $withTags) { name } }
        }
        fragment who on authors { id label: name }`;
      const data = await gqlData(t, query, { variables: { id: 1, limit: 2, withTags: true } });
      const newest = await restAsGraphql(t, '/items/articles', {
        fields: 'id',
        filter: { author: { _eq: 1 } },
        sort: '-id',
        limit: 2,
      });
      const oldest = await restAsGraphql(t, '/items/articles', {
        fields: 'id,title',
        filter: { author: { _eq: 1 } },
        sort: 'id',
        limit: 1,
      });
      const author = await restAsGraphql(t, '/items/authors/1', { fields: 'id,name' });
      assertSame(data.first, {
        id: author.id,
        label: author.name,
        newest,
        oldest: oldest.map((a: { id: string; title: string }) => ({ id: a.id, t: a.title })),
      });
      assert.deepEqual(Object.keys(data.tagged), ['id', 'tags']);
      assert.ok(data.tagged.tags.length > 0);
    });

    it('runs one SQL statement per root field', async () => {
      const statements: string[] = [];
      const stop = t.context.db.onQuery((sql) => statements.push(sql));
      try {
        await gqlData(
          t,
          '{ articles(limit: 25) { id title author { name } tags { tags_id { name } } } pages { id sections { item { ... on headings { text } } } } }',
        );
      } finally {
        stop();
      }
      assert.equal(statements.length, 2, statements.join('\n'));
    });

    it('serves GET for queries and answers 400 GRAPHQL_VALIDATION for bad documents', async () => {
      const get = await t.request({
        method: 'GET',
        url: `/graphql?query=${encodeURIComponent('query($n: Int) { articles(limit: $n) { id } }')}&variables=${encodeURIComponent('{"n":2}')}`,
      });
      assert.equal(get.statusCode, 200, get.body);
      assert.equal(JSON.parse(get.body).data.articles.length, 2);
      const twoOperations = 'query A { articles(limit: 1) { id } } query B { tags(limit: 1) { id } }';
      assert.deepEqual(Object.keys(await gqlData(t, twoOperations, { operationName: 'B' })), ['tags']);
      const unnamed = await gql(t, twoOperations);
      assert.equal(unnamed.status, 400);
      assert.equal(unnamed.body.errors[0].extensions.code, 'GRAPHQL_VALIDATION');
      const unknown = await gql(t, '{ articles { nope } }');
      assert.equal(unknown.status, 400);
      assert.equal(unknown.body.errors[0].message, 'GraphQL validation error.');
      assert.equal(unknown.body.errors[0].extensions.code, 'GRAPHQL_VALIDATION');
      assert.match(unknown.body.errors[0].extensions.errors[0].message, /nope/);
      const syntax = await gql(t, '{ articles { id ');
      assert.equal(syntax.status, 400);
      assert.equal(syntax.body.errors[0].extensions.code, 'GRAPHQL_VALIDATION');
      const badVariable = await gql(t, 'query($n: Int) { articles(limit: $n) { id } }', { variables: { n: 'many' } });
      assert.equal(badVariable.status, 400);
      assert.equal(badVariable.body.errors[0].extensions.code, 'GRAPHQL_VALIDATION');
      // MAX_RELATIONAL_DEPTH (10) bounds GraphQL nesting as it bounds REST paths.
      const nest = (depth: number): string =>
        depth === 0 ? 'id' : depth % 2 ? `author { id ${nest(depth - 1)} }` : `articles { id ${nest(depth - 1)} }`;
      assert.equal((await gql(t, `{ articles(limit: 1) { id ${nest(9)} } }`)).body.errors, undefined);
      const tooDeep = await gql(t, `{ articles(limit: 1) { id ${nest(11)} } }`);
      assert.equal(tooDeep.status, 200);
      assert.equal(tooDeep.body.errors[0].extensions.code, 'INVALID_QUERY');
      // Counted as REST counts it: a filter nested under a relation adds its own depth to the relation's.
      const hops = (n: number, at = 0): string =>
        at === n ? '{ id: { _eq: 1 } }' : `{ ${at % 2 ? 'articles' : 'author'}: ${hops(n, at + 1)} }`;
      assert.equal(
        (await gql(t, `{ articles(limit: 1) { id author { articles(filter: ${hops(7)}) { id } } } }`)).body.errors,
        undefined,
      );
      const deepFilter = await gql(t, `{ articles(limit: 1) { id author { articles(filter: ${hops(8)}) { id } } } }`);
      assert.equal(deepFilter.body.errors?.[0]?.extensions?.code, 'INVALID_QUERY', JSON.stringify(deepFilter.body));
      assert.match(deepFilter.body.errors[0].message, /Max relational depth exceeded/);
      const badLimit = await gql(t, '{ articles(limit: -5) { id } }');
      assert.equal(badLimit.status, 200);
      assert.equal(badLimit.body.data, null);
      assert.equal(badLimit.body.errors[0].extensions.code, 'INVALID_QUERY');
    });
  });
}
