/**
 * JSON answers are the same bytes on every database for the same data: compact, as JSON.stringify writes them (and
 * Directus sends them), where PostgreSQL's json_build_object wrote `"id" : 1, …` and MariaDB's JSON_OBJECT `"id": 1,
 * …`, and SQLite a whole float as `2.0`. Nested reads (m2o, o2m, m2m), a single item, an aggregate and GraphQL.
 * JSON fields are left out of the comparison: PostgreSQL's jsonb keeps its keys in its own order.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DbClient } from '../../src/config/config.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const READS = [
  '/items/articles?fields=id,title,slug,body,status,rating,views,price,score,published,publish_date,published_at,updated_at,read_time,uid,title_length,author.*,tags.tags_id.name&sort=id',
  '/items/authors?fields=*,articles.id,articles.title,articles.score&sort=id&meta=*',
  '/items/articles/4?fields=id,title,score,author.name,author.articles',
  '/items/articles?aggregate[count]=*&aggregate[sum]=rating&groupBy[]=status&sort=status',
  // A JSON field's parts (an array and a value have no key order to differ in).
  '/items/articles?fields=id,json(metadata, tags),json(metadata, lang)&sort=id',
];
const GRAPHQL =
  '{ articles(sort: ["id"]) { id title score price author { id name active } tags { tags_id { name } } } }';

describe('JSON answers are the same bytes on every database', () => {
  const apps = new Map<DbClient, TestApp>();
  before(async () => {
    for (const client of testClients()) apps.set(client, await startTestApp(client, { relations: true }));
  });
  after(async () => {
    for (const t of apps.values()) await t.close();
  });

  const bodies = async (t: TestApp): Promise<string[]> => {
    const out: string[] = [];
    for (const url of READS) {
      const res = await t.request({ method: 'GET', url });
      assert.equal(res.statusCode, 200, res.body);
      out.push(res.body);
    }
    const res = await t.request({ method: 'POST', url: '/graphql', payload: { query: GRAPHQL } });
    assert.equal(res.statusCode, 200, res.body);
    out.push(res.body);
    return out;
  };

  it('each database answers compact JSON', async () => {
    for (const [client, t] of apps)
      for (const body of await bodies(t))
        assert.equal(body, JSON.stringify(JSON.parse(body)), `${clientLabel(client)}: not compact`);
  });

  it('the databases answer the same bytes for the same reads', async () => {
    const [first, ...others] = [...apps];
    const expected = await bodies(first![1]);
    for (const [client, t] of others) {
      const got = await bodies(t);
      got.forEach((body, i) =>
        assert.equal(body, expected[i], `${clientLabel(client)} differs from ${clientLabel(first![0])}`),
      );
    }
  });
});
