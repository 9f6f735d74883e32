/**
 * Read hook events (engine/read/read-events.ts): `items.query` filters change the query before the read is planned
 * (REST lists and keys, GraphQL), `items.read` actions get the rows after the answer; system collections raise
 * `<scope>.query` / `<scope>.read`; a collection with a query hook is answered past the response cache.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { json, onEveryWorker, startTestApp, type TestApp } from '../helpers/test-app.js';
import { addWriteFixture } from '../helpers/write-fixture.js';
import type { ActionHandler, EventMeta, FilterHandler } from '../../src/engine/events/event-emitter.js';

type Row = Record<string, any>;

const CACHE_ENV = {
  CACHE_ENABLED: 'true',
  CACHE_STORE: 'memory',
  CACHE_AUTO_PURGE: 'true',
  CACHE_STATUS_HEADER: 'X-Cache',
  CACHE_TTL: '1m',
};

for (const client of testClients()) {
  describe(`read hook events (${clientLabel(client)})`, () => {
    let t: TestApp;
    let off: (() => void)[] = [];
    before(async () => {
      t = await startTestApp(client, { relations: true, env: CACHE_ENV });
      await addWriteFixture(t);
      for (const name of ['Read A', 'Read B', 'Read C'])
        assert.equal((await send('POST', '/items/authors', { name })).statusCode, 200);
    });
    after(async () => {
      await t?.close();
    });
    afterEach(() => {
      off.forEach((f) => f());
      off = [];
    });

    // An extension's hooks are registered in each process it runs in: in pair mode on both workers.
    const onFilter = (event: string, handler: FilterHandler) =>
      onEveryWorker(t, ({ events }) => events.onFilter(event, handler));
    const onAction = (event: string, handler: ActionHandler) =>
      onEveryWorker(t, ({ events }) => events.onAction(event, handler));
    const settled = () => Promise.all(t.workers.map(({ context }) => context.events.settled()));
    const send = (method: string, url: string, body?: unknown, worker?: number) =>
      t.request({
        method: method as 'GET',
        url,
        ...(body === undefined ? {} : { payload: body as object }),
        ...(worker === undefined ? {} : { worker }),
      });
    const names = async (url: string, worker?: number): Promise<string[]> => {
      const res = await send('GET', url, undefined, worker);
      assert.equal(res.statusCode, 200, res.body);
      return (json(res).data as Row[]).map((r) => r.name).sort();
    };

    it('an items.query filter adds a filter to REST lists, key reads and GraphQL; meta has the collection', async () => {
      const url = '/items/authors?fields=name&filter[name][_starts_with]=Read';
      // Cached before any hook (in each worker's memory): the hook must not be answered from that entry.
      for (const worker of t.workers.keys()) {
        assert.deepEqual(await names(url, worker), ['Read A', 'Read B', 'Read C']);
        assert.equal((await send('GET', url, undefined, worker)).headers['x-cache'], 'HIT');
      }
      const seen: EventMeta[] = [];
      off.push(
        onFilter('authors.items.query', (query, meta, context) => {
          seen.push({ ...meta, query: structuredClone(query), admin: context.accountability?.admin });
          const q = query as Row;
          q.filter = { _and: [q.filter ?? {}, { name: { _neq: 'Read B' } }] };
          return q;
        }),
      );
      for (const worker of t.workers.keys()) {
        assert.deepEqual(await names(url, worker), ['Read A', 'Read C']);
        assert.notEqual((await send('GET', url, undefined, worker)).headers['x-cache'], 'HIT');
      }
      assert.equal(seen[0]!.collection, 'authors');
      assert.equal(seen[0]!.event, 'authors.items.query');
      assert.equal(seen[0]!.admin, true);
      assert.deepEqual((seen[0]!.query as Row).filter, { name: { _starts_with: 'Read' } });
      assert.deepEqual((seen[0]!.query as Row).fields, ['name']);
      const b = json(await send('GET', '/items/authors?filter[name][_eq]=Read%20B&fields=id')).data;
      assert.deepEqual(b, []);
      // By key: the hook's filter hides Read B.
      off.forEach((f) => f());
      off = [];
      const idB = json(await send('GET', '/items/authors?filter[name][_eq]=Read%20B&fields=id')).data[0].id;
      off.push(
        onFilter('items.query', (query, meta) =>
          meta.collection === 'authors'
            ? { ...(query as Row), filter: { _and: [(query as Row).filter ?? {}, { name: { _neq: 'Read B' } }] } }
            : query,
        ),
      );
      assert.equal((await send('GET', `/items/authors/${idB}`)).statusCode, 403);
      const gql = await t.request({
        method: 'POST',
        url: '/graphql',
        payload: { query: '{ authors(filter: {name: {_starts_with: "Read"}}) { name } }' },
      });
      assert.equal(gql.statusCode, 200, gql.body);
      assert.deepEqual(
        json(gql)
          .data.authors.map((r: Row) => r.name)
          .sort(),
        ['Read A', 'Read C'],
      );
    });

    it('an items.read action gets the rows, the query and the collection, after the answer', async () => {
      const heard: EventMeta[] = [];
      off.push(onAction('items.read', (meta) => void heard.push(meta)));
      const res = await send('GET', '/items/authors?fields=name&filter[name][_eq]=Read%20A');
      assert.equal(res.statusCode, 200, res.body);
      await settled();
      const mine = heard.filter((m) => m.collection === 'authors');
      assert.equal(mine.length, 1);
      assert.deepEqual(mine[0]!.payload, [{ name: 'Read A' }]);
      assert.deepEqual((mine[0]!.query as Row).filter, { name: { _eq: 'Read A' } });
      assert.equal(mine[0]!.event, 'items.read');
      // A failing read action is the server's log, never the caller's.
      off.push(
        onAction('authors.items.read', () => {
          throw new Error('read action failed');
        }),
      );
      const again = await send('GET', '/items/authors?fields=name&filter[name][_eq]=Read%20C');
      assert.equal(again.statusCode, 200, again.body);
      await settled();
    });

    it('system collections raise <scope>.query and <scope>.read; a throwing query filter refuses the read', async () => {
      const heard: EventMeta[] = [];
      off.push(onAction('users.read', (meta) => void heard.push(meta)));
      off.push(onFilter('users.query', (query) => ({ ...(query as Row), fields: ['id', 'email'] })));
      const res = await send('GET', '/users?fields=id,first_name,email');
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(Object.keys(json(res).data[0]).sort(), ['email', 'id']);
      await settled();
      assert.ok(heard.length >= 1);
      assert.ok(Array.isArray(heard[0]!.payload));
      off.push(
        onFilter('articles.items.query', () => {
          throw Object.assign(new Error('No reading today'), { code: 'FORBIDDEN', status: 403 });
        }),
      );
      const refused = await send('GET', '/items/articles');
      assert.equal(refused.statusCode, 403, refused.body);
      assert.match(json(refused).errors[0].message, /No reading today/);
    });
  });
}
