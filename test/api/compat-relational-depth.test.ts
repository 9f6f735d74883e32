/**
 * Directus compatibility: MAX_RELATIONAL_DEPTH counted as Directus counts it where Strata's parsed query differs from
 * what Directus counts. A filter's `{}` leaf is a level (Directus counts the filter as written; Strata's parsed
 * filter drops the empty rule), in `filter`, in `deep[...][_filter]` and in GraphQL `filter` arguments. GraphQL
 * selections count as Directus turns them into `fields` paths: an o2m selecting only its related key is
 * `articles.id` (two levels, though Strata reads it as a key list), a relation selecting only `__typename` is no
 * path at all, and `_aggregated` queries are checked too (Strata checked none).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { json, startTestApp, type TestApp } from '../helpers/test-app.js';

const MAX = 5;
const TOO_DEEP = /Max relational depth exceeded/;

/** articles.tags (m2m) → the junction's articles_id (m2o back) → tags → ...: a path of any length, n keys long. */
const hops = (n: number) => Array.from({ length: n }, (_, i) => (i % 2 === 0 ? 'tags' : 'articles_id'));
/** `{tags: {articles_id: ... {leaf}}}` with n relation keys. */
const nested = (n: number, leaf: unknown): Record<string, unknown> =>
  hops(n).reduceRight<Record<string, unknown>>((acc, key) => ({ [key]: acc }), leaf as Record<string, unknown>);

for (const client of testClients()) {
  describe(`MAX_RELATIONAL_DEPTH counted as Directus counts it (${clientLabel(client)})`, () => {
    let t: TestApp;
    const get = (url: string) => t.request({ method: 'GET', url });
    const enc = (value: unknown) => encodeURIComponent(JSON.stringify(value));
    const gql = async (query: string) => {
      const res = await t.request({
        method: 'POST',
        url: '/graphql',
        payload: JSON.stringify({ query }),
        headers: { 'content-type': 'application/json' },
      });
      return json(res) as { data?: unknown; errors?: { message: string; extensions: { code: string } }[] };
    };
    /** A GraphQL input literal of a plain value (keys unquoted). */
    const literal = (value: unknown): string =>
      value !== null && typeof value === 'object'
        ? `{ ${Object.entries(value)
            .map(([k, v]) => `${k}: ${literal(v)}`)
            .join(', ')} }`
        : JSON.stringify(value);

    before(async () => {
      t = await startTestApp(client, { relations: true, env: { MAX_RELATIONAL_DEPTH: String(MAX) } });
    });
    after(async () => {
      await t?.close();
    });

    it('counts an empty rule at the end of a REST filter as a level', async () => {
      assert.equal((await get(`/items/articles?fields=id&filter=${enc(nested(MAX, {}))}`)).statusCode, 200);
      const res = await get(`/items/articles?fields=id&filter=${enc(nested(MAX + 1, {}))}`);
      assert.equal(res.statusCode, 400, res.body);
      assert.match(json(res).errors[0].message, TOO_DEEP);
      const some = await get(`/items/articles?fields=id&filter=${enc(nested(MAX, { _some: {} }))}`);
      assert.equal(some.statusCode, 200, some.body);
    });

    it('counts an empty rule in deep[...][_filter] as a level', async () => {
      // tags (1) + tags_id.articles.articles_id.tags (4) = 5; one more relation is 6.
      const rule = (leaf: Record<string, unknown>) => ({
        tags: { _filter: { tags_id: { articles: { articles_id: { tags: leaf } } } } },
      });
      assert.equal((await get(`/items/articles?fields=id,tags.id&deep=${enc(rule({}))}`)).statusCode, 200);
      const res = await get(`/items/articles?fields=id,tags.id&deep=${enc(rule({ articles_id: {} }))}`);
      assert.equal(res.statusCode, 400, res.body);
      assert.match(json(res).errors[0].message, TOO_DEEP);
    });

    it('counts an empty rule in a GraphQL filter as a level', async () => {
      assert.equal((await gql(`{ articles(filter: ${literal(nested(MAX, {}))}) { id } }`)).errors, undefined);
      const items = await gql(`{ articles(filter: ${literal(nested(MAX + 1, {}))}) { id } }`);
      assert.match(items.errors?.[0]?.message ?? '', TOO_DEEP, JSON.stringify(items));
    });

    it('checks GraphQL _aggregated queries too', async () => {
      // n relations and the id rule under the last: n + 1 levels.
      const filter = (n: number) => literal(nested(n, { id: { _eq: 1 } }));
      assert.equal(
        (await gql(`{ articles_aggregated(filter: ${filter(MAX - 1)}) { count { id } } }`)).errors,
        undefined,
      );
      const over = await gql(`{ articles_aggregated(filter: ${filter(MAX)}) { count { id } } }`);
      assert.match(over.errors?.[0]?.message ?? '', TOO_DEEP, JSON.stringify(over));
      const empty = await gql(`{ articles_aggregated(filter: ${literal(nested(MAX + 1, {}))}) { count { id } } }`);
      assert.match(empty.errors?.[0]?.message ?? '', TOO_DEEP, JSON.stringify(empty));
    });

    /** `tags { articles_id { ... { leaf } } }` with n relations. */
    const selection = (n: number, leaf: string): string =>
      hops(n).reduceRight((inner, key) => `${key} { ${inner} }`, leaf);

    it('counts a GraphQL o2m that selects only its key as Directus does (articles.id)', async () => {
      // tags.articles_id.tags.articles_id.id: 5 levels.
      assert.equal((await gql(`{ articles(limit: 1) { id ${selection(MAX - 1, 'id')} } }`)).errors, undefined);
      // ... .tags.id: 6 levels, even though the last o2m is read as a list of keys.
      const keysOnly = await gql(`{ articles(limit: 1) { id ${selection(MAX, 'id')} } }`);
      assert.match(keysOnly.errors?.[0]?.message ?? '', TOO_DEEP, JSON.stringify(keysOnly));
    });

    it('counts a GraphQL relation that selects only __typename as no path, as Directus does', async () => {
      const typename = await gql(`{ articles(limit: 1) { id ${selection(MAX, '__typename')} } }`);
      assert.equal(typename.errors, undefined, JSON.stringify(typename));
    });
  });
}
