/**
 * Plain query documents are answered with the database's JSON spliced in as text (src/graphql/pass-through.ts):
 * the answer must be exactly the one full GraphQL execution gives (same values in GraphQL's scalar forms, same key
 * order), in one statement per root field. Full execution is forced by a root `__typename`, which the pass-through
 * leaves to graphql-jit.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { onEveryWorker, startTestApp, type TestApp } from '../helpers/test-app.js';
import { gql } from './helpers.js';

const DOCUMENTS: { name: string; query: string; variables?: Record<string, unknown> }[] = [
  {
    name: 'a list with every scalar type, nested m2o, o2m and m2m, in selection order',
    query: `{ articles(sort: ["id"], limit: 4) { title id price score rating views published publish_date published_at updated_at read_time metadata uid status
      author { name id articles(sort: ["-id"], limit: 2) { id title } } tags { id tags_id { name id } } } }`,
  },
  {
    name: 'aliased relations with different arguments, fragments, variables and directives',
    query: `query ($status: String!, $withTags: Boolean!) {
      first: articles(filter: {status: {_eq: $status}}, limit: 2, sort: ["id"]) { ...basics writer: author { name } tags @include(if: $withTags) { tags_id { name } } }
      one: articles_by_id(id: 1) { id price latest: author { articles(limit: 1, sort: ["-id"]) { id } } oldest: author { articles(limit: 1, sort: ["id"]) { id } } }
    }
    fragment basics on articles { id title price }`,
    variables: { status: 'published', withTags: true },
  },
  {
    name: 'the o2m side with only the related key selected (objects, not REST key lists)',
    query: '{ authors(sort: ["id"]) { id name articles(sort: ["id"]) { id } } }',
  },
];

for (const client of testClients()) {
  describe(`GraphQL pass-through (${clientLabel(client)})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(client, { relations: true });
    });
    after(async () => {
      await t?.close();
    });

    for (const document of DOCUMENTS) {
      it(`answers as full execution does: ${document.name}`, async () => {
        const statements: string[] = [];
        const stop = onEveryWorker(t, ({ db }) => db.onQuery((sql) => statements.push(sql)));
        const passed = await gql(t, document.query, { variables: document.variables });
        stop();
        assert.equal(passed.status, 200, JSON.stringify(passed.body));
        assert.equal(passed.body.errors, undefined, JSON.stringify(passed.body.errors));
        const roots = Object.keys(passed.body.data).length;
        assert.equal(statements.length, roots, statements.join('\n'));

        const executedStatements: string[] = [];
        const stopAgain = onEveryWorker(t, ({ db }) => db.onQuery((sql) => executedStatements.push(sql)));
        const executed = await gql(t, document.query.replace('{', '{ __typename '), { variables: document.variables });
        stopAgain();
        // The pass-through read keys as text: its statements are not those of full execution (REST's value forms).
        assert.notEqual(statements.join('\n'), executedStatements.join('\n'));
        assert.equal(executed.status, 200, JSON.stringify(executed.body));
        const { __typename, ...data } = executed.body.data;
        assert.equal(__typename, 'Query');
        // Order-sensitive: the two texts must list the same keys in the same order.
        assert.equal(JSON.stringify(passed.body.data), JSON.stringify(data));
      });
    }

    // Roots on their own lines: the `__typename` added for full execution moves no error location.
    const FAILING = [
      {
        name: 'a nullable root (missing key) beside one that reads',
        query: '{\n  articles_by_id(id: 999) { id title }\n  articles(sort: ["id"], limit: 2) { id price }\n}',
      },
      {
        name: 'a non-null root whose filter value the engine refuses',
        query: '{\n  articles(filter: {id: {_eq: "abc"}}) { id }\n  authors(limit: 1) { id }\n}',
      },
    ];
    for (const document of FAILING) {
      it(`answers failures as full execution does, running each read once: ${document.name}`, async () => {
        const statements: string[] = [];
        const stop = onEveryWorker(t, ({ db }) => db.onQuery((sql) => statements.push(sql)));
        const passed = await gql(t, document.query);
        stop();
        const executedStatements: string[] = [];
        const stopAgain = onEveryWorker(t, ({ db }) => db.onQuery((sql) => executedStatements.push(sql)));
        const executed = await gql(t, document.query.replace('{', '{ __typename '));
        stopAgain();
        assert.equal(passed.status, 200, JSON.stringify(passed.body));
        assert.ok(passed.body.errors?.length, JSON.stringify(passed.body));
        assert.deepEqual(passed.body.errors, executed.body.errors);
        const { __typename, ...data } = executed.body.data ?? { __typename: null };
        assert.equal(JSON.stringify(passed.body.data), executed.body.data === null ? 'null' : JSON.stringify(data));
        // Nothing ran twice: as many statements as full execution runs.
        assert.equal(statements.length, executedStatements.length, statements.join('\n'));
      });
    }

    it('leaves documents it cannot splice to full execution (function fields, __typename, renamed values, unions)', async () => {
      const data = (
        await gql(t, '{ articles(sort: ["id"], limit: 1) { __typename heading: title published_at_func { year } } }')
      ).body.data;
      assert.deepEqual(Object.keys(data.articles[0]), ['__typename', 'heading', 'published_at_func']);
      assert.equal(data.articles[0].__typename, 'articles');
    });
  });
}
