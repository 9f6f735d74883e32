/**
 * Answers from memory (CACHE_ENABLED; docs/design/response-cache.md): a repeated read is a hit (CACHE_STATUS_HEADER
 * says so); a write to the collection, or to one its fields, filters or rules reach, makes the next read fresh; callers
 * with other permissions never share an entry; `Cache-Control: no-store` bypasses when allowed; entries expire;
 * REST and GraphQL share it; two instances sharing a Redis store never answer stale after an acknowledged write.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { json, startSecondInstance, startTestApp, type SecondInstance, type TestApp } from '../helpers/test-app.js';
import { createPolicy, createUserWithPolicies } from '../helpers/access-fixture.js';
import { queryBuilder } from '../../src/db/connection.js';
import { Cache } from '../../src/cache/cache.js';
import { MemoryResponseStore, type StoredAnswer } from '../../src/cache/response-store.js';

const CACHE_ENV = {
  CACHE_ENABLED: 'true',
  CACHE_STATUS_HEADER: 'X-Cache',
  CACHE_SKIP_ALLOWED: 'true',
  CACHE_TTL: '1m',
};

describe('response store', () => {
  it('does not keep an answer whose read started before a write to what it read', async () => {
    const store = new MemoryResponseStore(new Cache<string, StoredAnswer>('responses', { max: 10 }));
    const { sequence } = await store.lookup('k');
    await store.bump(['articles']);
    await store.store('k', 'old', ['articles'], sequence);
    assert.equal((await store.lookup('k')).body, undefined);
    const next = await store.lookup('k');
    await store.store('k', 'new', ['articles'], next.sequence);
    assert.equal(String((await store.lookup('k')).body), 'new');
    await store.bump(['authors']);
    assert.equal(String((await store.lookup('k')).body), 'new');
    await store.bump(['articles']);
    assert.equal((await store.lookup('k')).body, undefined);
  });
});

for (const client of testClients()) {
  describe(`response cache (${clientLabel(client)})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(client, {
        relations: true,
        env: CACHE_ENV,
        oneWorker:
          "a memory store is each worker's own: a repeated read is a hit only on the worker that kept it (test/cluster/workers.test.ts checks freshness across workers)",
      });
    });
    after(async () => {
      await t?.close();
    });

    const get = (url: string, headers: Record<string, string> = {}, token?: string | null) =>
      t.request({ method: 'GET', url, headers, ...(token === undefined ? {} : { token }) });
    const write = async (method: 'PATCH' | 'POST', url: string, body: unknown) => {
      const res = await t.request({
        method,
        url,
        payload: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      });
      assert.ok(res.statusCode < 300, res.body);
    };
    const graphql = (query: string) =>
      t.request({
        method: 'POST',
        url: '/graphql',
        payload: JSON.stringify({ query }),
        headers: { 'content-type': 'application/json' },
      });

    it('answers a repeated read from memory, the same answer, with Cache-Control', async () => {
      const url = '/items/articles?fields=id,title&sort=id&limit=3';
      const first = await get(url);
      assert.equal(first.statusCode, 200);
      assert.equal(first.headers['x-cache'], 'MISS');
      const second = await get(url);
      assert.equal(second.headers['x-cache'], 'HIT');
      assert.equal(second.body, first.body);
      assert.match(String(second.headers['cache-control']), /max-age=60/);
      // The same parameters in another order are the same read.
      assert.equal((await get('/items/articles?limit=3&sort=id&fields=id,title')).headers['x-cache'], 'HIT');
    });

    it('answers a hit before the query is parsed and planned; an unknown token is still refused', async () => {
      const url = '/items/articles?fields=id,title&sort=-id&limit=2';
      const miss = await get(url);
      assert.match(String(miss.headers['server-timing']), /parse;dur=/);
      const hit = await get(url);
      assert.equal(hit.headers['x-cache'], 'HIT');
      assert.equal(hit.body, miss.body);
      // Answered from the route's first hook: no authentication stage, no parse, no plan.
      const timing = String(hit.headers['server-timing']);
      assert.match(timing, /^cache;dur=/);
      assert.doesNotMatch(timing, /auth;|parse;/);
      const stranger = await get(url, {}, 'no-such-static-token');
      assert.equal(stranger.statusCode, 401, stranger.body);
      const anonymous = await get(url, {}, null);
      assert.equal(anonymous.statusCode, 403, anonymous.body);
    });

    it('answers fresh after a write to the collection', async () => {
      const url = '/items/articles/1?fields=id,title';
      await get(url);
      assert.equal((await get(url)).headers['x-cache'], 'HIT');
      await write('PATCH', '/items/articles/1', { title: 'Rewritten once' });
      const after = await get(url);
      assert.equal(after.headers['x-cache'], 'MISS');
      assert.equal(json(after).data.title, 'Rewritten once');
    });

    it('answers fresh after a write to a collection reached by a nested field or a filter', async () => {
      const nested = '/items/articles?fields=id,author.name&filter[id][_eq]=1';
      const filtered = '/items/articles?fields=id&filter[author][name][_eq]=Renamed%20author';
      const article = json(await get('/items/articles/1?fields=author')).data;
      assert.ok(article.author, 'the fixture article has an author');
      await get(nested);
      await get(filtered);
      assert.equal((await get(nested)).headers['x-cache'], 'HIT');
      assert.deepEqual(json(await get(filtered)).data, []);
      await write('PATCH', `/items/authors/${article.author}`, { name: 'Renamed author' });
      const fresh = await get(nested);
      assert.equal(fresh.headers['x-cache'], 'MISS');
      assert.equal(json(fresh).data[0].author.name, 'Renamed author');
      assert.ok(json(await get(filtered)).data.some((row: { id: number }) => row.id === 1));
    });

    it('never shares an entry between callers with other permissions', async () => {
      const all = await createPolicy(t, { permissions: [{ collection: 'articles', fields: 'id,status' }] });
      const published = await createPolicy(t, {
        permissions: [{ collection: 'articles', fields: 'id,status', permissions: { status: { _eq: 'published' } } }],
      });
      const a = await createUserWithPolicies(t, [all]);
      const b = await createUserWithPolicies(t, [published]);
      const url = '/items/articles?fields=id,status&sort=id&limit=-1';
      const seenByA = await get(url, {}, a.token);
      assert.equal(seenByA.statusCode, 200, seenByA.body);
      assert.equal((await get(url, {}, a.token)).headers['x-cache'], 'HIT');
      const seenByB = await get(url, {}, b.token);
      assert.equal(seenByB.headers['x-cache'], 'MISS');
      assert.ok(json(seenByB).data.every((row: { status: string }) => row.status === 'published'));
      assert.notEqual(seenByB.body, seenByA.body);
      // Another user with the same policies shares A's entry (the rules name no user).
      const a2 = await createUserWithPolicies(t, [all]);
      assert.equal((await get(url, {}, a2.token)).headers['x-cache'], 'HIT');
      assert.match(String((await get(url, {}, a2.token)).headers['cache-control']), /^private/);
    });

    it('bypasses the cache for Cache-Control: no-store when CACHE_SKIP_ALLOWED', async () => {
      const url = '/items/articles/2?fields=id,title';
      await get(url);
      // Written around Strata: nothing tells the cache (only its TTL would).
      await queryBuilder(t.context.db)('articles').where({ id: 2 }).update({ title: 'Behind the back' });
      assert.notEqual(json(await get(url)).data.title, 'Behind the back');
      const bypass = await get(url, { 'cache-control': 'no-store' });
      assert.equal(bypass.headers['cache-control'], 'no-store');
      assert.equal(bypass.headers['x-cache'], undefined);
      assert.equal(json(bypass).data.title, 'Behind the back');
    });

    it('lets entries expire after CACHE_TTL', async () => {
      const url = '/items/articles/3?fields=id,slug';
      await get(url);
      assert.equal((await get(url)).headers['x-cache'], 'HIT');
      t.clock.advance(61_000);
      assert.equal((await get(url)).headers['x-cache'], 'MISS');
    });

    it('reads once for many callers missing the same answer at once', async () => {
      const url = '/items/articles?fields=id,title&filter[id][_lte]=6&sort=-id';
      let statements = 0;
      const stop = t.context.db.onQuery(() => statements++);
      try {
        const answers = await Promise.all(Array.from({ length: 8 }, () => get(url)));
        assert.ok(answers.every((a) => a.statusCode === 200 && a.body === answers[0]!.body));
        assert.equal(statements, 1);
      } finally {
        stop();
      }
    });

    it('keeps no errors and no system collections', async () => {
      assert.equal((await get('/items/articles/999999')).statusCode, 403);
      assert.notEqual((await get('/items/articles/999999')).headers['x-cache'], 'HIT');
      assert.equal((await get('/items/directus_users?fields=id')).headers['x-cache'], undefined);
    });

    it('shares the cache with GraphQL: a query is kept, and any write to what it read makes it fresh', async () => {
      const query = '{ articles(filter: { id: { _eq: 4 } }) { id title author { name } } }';
      const first = await graphql(query);
      assert.equal(first.headers['x-cache'], 'MISS');
      assert.equal((await graphql(query)).headers['x-cache'], 'HIT');
      await graphql('mutation { update_articles_item(id: 4, data: { title: "Via GraphQL" }) { id } }');
      const fresh = await graphql(query);
      assert.equal(fresh.headers['x-cache'], 'MISS');
      assert.equal(json(fresh).data.articles[0].title, 'Via GraphQL');
      await graphql(query);
      await write('PATCH', '/items/articles/4', { title: 'Via REST' });
      assert.equal(json(await graphql(query)).data.articles[0].title, 'Via REST');
    });
  });
}

const redisUrl = process.env.TEST_REDIS_URL;
for (const client of redisUrl ? testClients() : []) {
  describe(`response cache in Redis, two instances (${clientLabel(client)})`, () => {
    let a: TestApp;
    let b: SecondInstance;
    before(async () => {
      const env = {
        ...CACHE_ENV,
        CACHE_STORE: 'redis',
        REDIS: redisUrl!,
        REDIS_NAMESPACE: `strata-cache-${randomBytes(4).toString('hex')}`,
      };
      a = await startTestApp(client, { relations: true, env });
      b = await startSecondInstance(a, env);
    });
    after(async () => {
      await b?.close();
      await a?.close();
    });

    it('never answers stale on B after a write acknowledged by A (50 rounds)', async () => {
      const url = '/items/articles/5?fields=id,title,author.name';
      const readOnB = () =>
        b.app.inject({ method: 'GET', url, headers: { authorization: 'Bearer strata-test-admin-token' } });
      let hits = 0;
      for (let i = 0; i < 50; i++) {
        const before = await readOnB();
        if (before.headers['x-cache'] === 'HIT') hits++;
        const res = await a.request({
          method: 'PATCH',
          url: '/items/articles/5',
          payload: JSON.stringify({ title: `round ${i}` }),
          headers: { 'content-type': 'application/json' },
        });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(json(await readOnB()).data.title, `round ${i}`);
        assert.equal(json(await a.request({ method: 'GET', url })).data.title, `round ${i}`);
      }
      // B's own reads (and A's, with the same key) are kept in the shared store between writes.
      assert.ok(hits > 0, 'some reads were hits');
    });
  });
}
