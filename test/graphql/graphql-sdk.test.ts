/**
 * `@directus/sdk`'s graphql() client against a listening Strata on every database: queries with variables on
 * /graphql and /graphql/system, a mutation, and coded errors surfacing as the SDK reports them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createDirectus, graphql, staticToken } from '@directus/sdk';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { ADMIN, startTestApp, type TestApp, listenOnLoopback } from '../helpers/test-app.js';
import { assertSame, rest, restAsGraphql } from './helpers.js';

for (const client of testClients()) {
  describe(`@directus/sdk graphql() against Strata (${clientLabel(client)})`, () => {
    let t: TestApp;
    let url: string;
    before(async () => {
      t = await startTestApp(client, { relations: true });
      url = await listenOnLoopback(t);
    });
    after(async () => {
      await t?.close();
    });

    it('queries items and system data', async () => {
      const sdk = createDirectus(url).with(staticToken(ADMIN.token)).with(graphql());
      const result = await sdk.query<{ articles: { id: string; title: string; author: { name: string } | null }[] }>(
        'query Articles($status: String!) { articles(filter: {status: {_eq: $status}}, sort: ["id"]) { id title author { name } } }',
        { status: 'published' },
      );
      assertSame(
        result.articles,
        await restAsGraphql(t, '/items/articles', {
          fields: 'id,title,author.name',
          filter: { status: { _eq: 'published' } },
          sort: 'id',
        }),
      );
      const me = await sdk.query<{ users_me: { email: string } }>('{ users_me { email } }', {}, 'system');
      assert.equal(me.users_me.email, ADMIN.email);
    });

    it('runs a mutation and reports coded errors', async () => {
      const sdk = createDirectus(url).with(staticToken(ADMIN.token)).with(graphql());
      const created = await sdk.query<{ create_tags_item: { id: string; name: string } }>(
        'mutation { create_tags_item(data: {name: "from the sdk"}) { id name } }',
      );
      assert.equal(created.create_tags_item.name, 'from the sdk');
      await assert.rejects(
        sdk.query('{ articles_by_id(id: 999999) { id } }'),
        (error: { errors: { extensions: { code: string } }[] }) => {
          assert.equal(error.errors[0]!.extensions.code, 'FORBIDDEN');
          return true;
        },
      );
      await assert.rejects(
        sdk.query('{ articles { nope } }'),
        (error: { errors: { extensions: { code: string } }[] }) => {
          assert.equal(error.errors[0]!.extensions.code, 'GRAPHQL_VALIDATION');
          return true;
        },
      );
    });
  });
}
