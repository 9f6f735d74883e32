/**
 * Limits on GraphQL documents, enforced before validation and execution: fragment expansion, depth, fields,
 * aliases, NUL characters, and GET variables checked like a JSON body. The limits do not depend on the database, so
 * one SQLite app serves; the other databases run the same documents in the fuzz suite.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { errorCode, startTestApp, type TestApp } from '../helpers/test-app.js';
import { gql, gqlData } from './helpers.js';

/** `{articles{...F0}}` with F0 spreading F1 twice, ..., F<n> = `{id}`: 2^n fields in about 10n tokens. */
function doubling(levels: number): string {
  const fragments = Array.from(
    { length: levels },
    (_, i) => `fragment F${i} on articles { ...F${i + 1} ...F${i + 1} }`,
  );
  return `{ articles(limit: 1) { ...F0 } } ${fragments.join(' ')} fragment F${levels} on articles { id }`;
}

describe('GraphQL document limits', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp('sqlite3', {
      relations: true,
      env: { GRAPHQL_QUERY_MAX_DEPTH: '3', GRAPHQL_QUERY_MAX_FIELDS: '20', GRAPHQL_QUERY_MAX_ALIASES: '2' },
    });
  });
  after(async () => {
    await t?.close();
  });

  const refused = async (query: string, pattern: RegExp) => {
    const { status, body } = await gql(t, query);
    assert.equal(status, 400, JSON.stringify(body));
    assert.equal(body.errors[0].extensions.code, 'GRAPHQL_VALIDATION');
    assert.match(JSON.stringify(body.errors[0].extensions.errors), pattern);
  };

  it('counts fragments as the selection they expand to, without expanding them', async () => {
    // 2^40 fields: before the limit, validation of this document did not finish (the process stopped answering).
    await refused(doubling(40), /GRAPHQL_QUERY_MAX_FIELDS/);
    await refused(doubling(5), /GRAPHQL_QUERY_MAX_FIELDS/);
    assert.deepEqual(await gqlData(t, doubling(4)), { articles: [{ id: '1' }] });
    assert.equal((await t.request({ method: 'GET', url: '/server/ping' })).body, 'pong');
  });

  it('bounds depth, fields and aliases, also through inline fragments and spreads', async () => {
    assert.ok(await gqlData(t, '{ articles(limit: 1) { author { name } } }'));
    await refused('{ articles(limit: 1) { author { articles { id } } } }', /GRAPHQL_QUERY_MAX_DEPTH/);
    await refused(
      '{ articles(limit: 1) { ... on articles { author { articles { id } } } } }',
      /GRAPHQL_QUERY_MAX_DEPTH/,
    );
    await refused(
      '{ articles(limit: 1) { author { ...A } } } fragment A on authors { articles { id } }',
      /GRAPHQL_QUERY_MAX_DEPTH/,
    );
    await refused(`{ articles { ${Array.from({ length: 21 }, () => 'id').join(' ')} } }`, /GRAPHQL_QUERY_MAX_FIELDS/);
    assert.ok(await gqlData(t, '{ a: articles(limit: 1) { id } b: articles(limit: 1) { id } }'));
    await refused(
      '{ a: articles(limit: 1) { id } b: articles(limit: 1) { id } c: articles(limit: 1) { id } }',
      /GRAPHQL_QUERY_MAX_ALIASES/,
    );
    await refused(
      '{ a: articles(limit: 1) { ...X } } fragment X on articles { b: id c: title }',
      /GRAPHQL_QUERY_MAX_ALIASES/,
    );
    // A fragment spreading itself is left to validation, which names it.
    await refused('{ articles { ...A } } fragment A on articles { id ...A }', /Cannot spread fragment/);
  });

  it('refuses NUL characters in documents and bounds GET variables like a JSON body', async () => {
    await refused('{ articles(filter: { title: { _eq: "a\\u0000b" } }) { id } }', /NUL/);
    const ok = await gql(t, '{ articles(filter: { title: { _eq: "a\\\\u0000b" } }) { id } }');
    assert.deepEqual(ok.body, { data: { articles: [] } });
    const deepVariables = encodeURIComponent(`{"f":${'['.repeat(5000)}${']'.repeat(5000)}}`);
    const response = await t.request({
      method: 'GET',
      url: `/graphql?query=${encodeURIComponent('query($f: [String]) { articles { id } }')}&variables=${deepVariables}`,
    });
    assert.equal(errorCode(response), 'INVALID_PAYLOAD', response.body);
    const nulVariables = await t.request({
      method: 'GET',
      url: `/graphql?query=${encodeURIComponent('query($s: String) { articles(search: $s) { id } }')}&variables=${encodeURIComponent('{"s":"\\u0000"}')}`,
    });
    assert.equal(errorCode(nulVariables), 'INVALID_PAYLOAD', nulVariables.body);
  });
});

describe('GraphQL document limits (defaults)', () => {
  it('refuses the 40-level doubling document and still serves the introspection query', async () => {
    const t = await startTestApp('sqlite3');
    try {
      const { status, body } = await gql(t, doubling(40));
      assert.equal(status, 400);
      assert.equal(body.errors[0].extensions.code, 'GRAPHQL_VALIDATION');
      const { getIntrospectionQuery } = await import('graphql');
      const introspection = await gql(t, getIntrospectionQuery());
      assert.equal(introspection.status, 200, JSON.stringify(introspection.body).slice(0, 300));
      assert.ok(introspection.body.data.__schema.types.length > 10);
    } finally {
      await t.close();
    }
  });
});
