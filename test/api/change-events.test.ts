/**
 * Change events (realtime's source): every committed item write announces its collection, action and keys, once
 * committed — REST and GraphQL, nested writes (each collection touched), batch and {query} writes, imports, deletes,
 * system collections — and a write that fails announces nothing. With Redis, an event committed on one instance
 * reaches the listeners of another.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import { clientLabel, testClients } from '../helpers/test-db.js';
import {
  json,
  startSecondInstance,
  startTestApp,
  type SecondInstance,
  type TestApp,
  type TestRequest,
} from '../helpers/test-app.js';
import { addWriteFixture, setDeselectAction } from '../helpers/write-fixture.js';
import type { ChangeEvent } from '../../src/engine/write/change-events.js';

type Method = 'POST' | 'PATCH' | 'DELETE';
const sameKeys = (event: ChangeEvent) => ({ ...event, keys: event.keys.map(String).sort() });

for (const client of testClients()) {
  describe(`change events (${clientLabel(client)})`, () => {
    let t: TestApp;
    let heard: ChangeEvent[] = [];
    // In pair mode a write answered by the other worker reaches t.context's listeners through the relay, after its
    // answer (change events are not waited for): each request waits until the relay is quiet, at once with one worker.
    const request = async (options: TestRequest) => {
      const res = await t.request(options);
      await t.relayed();
      return res;
    };
    before(async () => {
      t = await startTestApp(client, { relations: true });
      await addWriteFixture(t);
      t.context.changes.listen((event) => heard.push(event));
    });
    beforeEach(() => {
      heard = [];
    });
    after(async () => {
      await t?.close();
    });

    const ok = async (method: Method, url: string, body?: unknown) => {
      const res = await request({
        method,
        url,
        ...(body === undefined
          ? {}
          : { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      });
      assert.ok(res.statusCode === 200 || res.statusCode === 204, res.body);
      return res.statusCode === 200 ? json(res).data : null;
    };
    const events = () => heard.map(sameKeys);

    it('a REST create, update and delete each announce their keys', async () => {
      const created = await ok('POST', '/items/authors?fields=id', [{ name: 'E1' }, { name: 'E2' }]);
      const keys = created.map((row: { id: number }) => String(row.id)).sort();
      await ok('PATCH', `/items/authors/${keys[0]}`, { bio: 'changed' });
      await ok('DELETE', '/items/authors', keys);
      assert.deepEqual(events(), [
        { collection: 'authors', action: 'create', keys },
        { collection: 'authors', action: 'update', keys: [keys[0]] },
        { collection: 'authors', action: 'delete', keys },
      ]);
    });

    it('a nested write announces every collection it touches', async () => {
      const article = await ok('POST', '/items/articles?fields=id,author,comments', {
        title: 'Nested events',
        author: { name: 'Nested E' },
        comments: [{ body: 'c1' }, { body: 'c2' }],
      });
      assert.deepEqual(
        events().sort((a, b) => (a.collection < b.collection ? -1 : 1)),
        [
          { collection: 'articles', action: 'create', keys: [String(article.id)] },
          { collection: 'authors', action: 'create', keys: [String(article.author)] },
          { collection: 'comments', action: 'create', keys: article.comments.map(String).sort() },
        ],
      );
      heard = [];
      // Replacing the o2m list: the dropped comment is deleted (its deselect action), the kept one re-linked (its
      // foreign key written again), the article updated.
      await setDeselectAction(t, 'comments', 'article', 'delete');
      await ok('PATCH', `/items/articles/${article.id}`, { comments: [article.comments[0]] });
      assert.deepEqual(events(), [
        { collection: 'articles', action: 'update', keys: [String(article.id)] },
        { collection: 'comments', action: 'update', keys: [String(article.comments[0])] },
        { collection: 'comments', action: 'delete', keys: [String(article.comments[1])] },
      ]);
    });

    it('batch and {query} updates announce the keys they changed', async () => {
      const created = await ok('POST', '/items/authors?fields=id', [
        { name: 'Q1', bio: 'query-target' },
        { name: 'Q2', bio: 'query-target' },
      ]);
      const keys = created.map((row: { id: number }) => String(row.id)).sort();
      heard = [];
      await ok(
        'PATCH',
        '/items/authors',
        created.map((row: { id: number }) => ({ id: row.id, name: `B${row.id}` })),
      );
      await ok('PATCH', '/items/authors', {
        query: { filter: { bio: { _eq: 'query-target' } } },
        data: { bio: 'done' },
      });
      // The array's items are each updated on its own, as Directus's updateBatch does: announced apart.
      assert.deepEqual(events(), [
        { collection: 'authors', action: 'update', keys, apart: true },
        { collection: 'authors', action: 'update', keys },
      ]);
    });

    it('GraphQL mutations and imports announce their creates', async () => {
      const res = await request({
        method: 'POST',
        url: '/graphql',
        payload: { query: 'mutation { create_authors_item(data: {name: "GraphQL E"}) { id } }' },
      });
      assert.equal(res.statusCode, 200, res.body);
      const id = String(json(res).data.create_authors_item.id);
      const imported = await request({
        method: 'POST',
        url: '/utils/import/authors',
        payload: 'name\nI1\nI2\nI3\n',
        headers: { 'content-type': 'text/csv' },
      });
      assert.equal(imported.statusCode, 200, imported.body);
      const [graphql, importEvent] = events();
      assert.deepEqual(graphql, { collection: 'authors', action: 'create', keys: [id] });
      assert.equal(importEvent!.action, 'create');
      assert.equal(importEvent!.keys.length, 3);
      assert.equal(heard.length, 2);
    });

    it('system collections are announced too', async () => {
      const role = await ok('POST', '/roles?fields=id', { name: 'Events role' });
      assert.deepEqual(events(), [{ collection: 'service_roles', action: 'create', keys: [String(role.id)] }]);
    });

    it('a write that fails (rolled back) announces nothing', async () => {
      const res = await request({
        method: 'POST',
        url: '/items/articles',
        payload: { title: 'Fails', comments: [{ body: 'ok' }, { body: null }] },
      });
      assert.equal(res.statusCode, 400, res.body);
      const imported = await request({
        method: 'POST',
        url: '/utils/import/comments',
        payload: 'article,body\n1,first\n1,\n',
        headers: { 'content-type': 'text/csv' },
      });
      assert.equal(imported.statusCode, 400, imported.body);
      assert.deepEqual(heard, [], 'a failed import announces none of its rows');
    });
  });
}

const redisUrl = process.env.TEST_REDIS_URL;
if (redisUrl && process.env.TEST_PG_URL) {
  describe('change events across instances (PostgreSQL + Redis)', () => {
    let a: TestApp;
    let b: SecondInstance;
    const env = { REDIS: redisUrl, REDIS_NAMESPACE: `strata-events-${randomBytes(4).toString('hex')}` };
    before(async () => {
      a = await startTestApp('pg', { env });
      b = await startSecondInstance(a, env);
    });
    after(async () => {
      await b?.close();
      await a?.close();
    });

    it('a create committed through A reaches a listener on B, and A hears it once', async () => {
      const onA: ChangeEvent[] = [];
      a.context.changes.listen((event) => onA.push(event));
      const reached = new Promise<ChangeEvent>((resolve) => b.context.changes.listen(resolve));
      const res = await a.request({ method: 'POST', url: '/items/authors?fields=id', payload: { name: 'Across' } });
      assert.equal(res.statusCode, 200, res.body);
      const event = await reached;
      assert.deepEqual(sameKeys(event), { collection: 'authors', action: 'create', keys: [String(json(res).data.id)] });
      assert.equal(onA.length, 1);
    });
  });
}
