/**
 * Hook events of item writes and logins (engine/events): filters run in the write's transaction and may change the
 * payload or refuse it (a coded error, nothing written); actions follow the commit with Directus's meta; REST,
 * GraphQL, nested writes, imports, system collections and auth.login raise them; a filter that never answers is
 * bounded by EXTENSIONS_FILTER_TIMEOUT. Schedules run each tick once across two schedulers over one database.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { ADMIN, json, onEveryWorker, startTestApp, type TestApp } from '../helpers/test-app.js';
import { addWriteFixture } from '../helpers/write-fixture.js';
import { Scheduler } from '../../src/engine/events/scheduler.js';
import { ScheduleRunsRepository } from '../../src/db/repositories/schedule-runs.js';
import type { ActionHandler, EventMeta, FilterHandler } from '../../src/engine/events/event-emitter.js';

type Row = Record<string, any>;

for (const client of testClients()) {
  describe(`hook events (${clientLabel(client)})`, () => {
    let t: TestApp;
    let off: (() => void)[] = [];
    before(async () => {
      t = await startTestApp(client, {
        relations: true,
        env: { EXTENSIONS_FILTER_TIMEOUT: '300ms' },
      });
      await addWriteFixture(t);
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
    const send = (method: string, url: string, body?: unknown) =>
      t.request({ method: method as 'GET', url, ...(body === undefined ? {} : { payload: body as object }) });
    const actions = (event: string): EventMeta[] => {
      const heard: EventMeta[] = [];
      off.push(onAction(event, (meta, context) => void heard.push({ ...meta, ctx: context })));
      return heard;
    };

    it('a filter changes the payload of a create; the action carries key, payload and collection', async () => {
      off.push(
        onFilter('authors.items.create', (payload) => ({
          ...(payload as Row),
          bio: 'set by a hook',
        })),
      );
      const heard = actions('items.create');
      const res = await send('POST', '/items/authors', { name: 'Hooked' });
      assert.equal(res.statusCode, 200, res.body);
      const item = json(res).data;
      assert.equal(item.bio, 'set by a hook');
      await settled();
      assert.equal(heard.length, 1);
      assert.equal(String(heard[0]!.key), String(item.id));
      assert.equal(heard[0]!.collection, 'authors');
      assert.equal(heard[0]!.event, 'items.create');
      assert.deepEqual(heard[0]!.payload, { name: 'Hooked', bio: 'set by a hook' });
      assert.equal((heard[0]!.ctx as Row).accountability.admin, true);
    });

    it('a filter that throws refuses the write with a coded error and nothing is written', async () => {
      off.push(
        onFilter('items.create', (payload) => {
          if ((payload as Row).name === 'Refused') throw new Error('Stock too low');
          return payload;
        }),
      );
      const heard = actions('items.create');
      const res = await send('POST', '/items/authors', { name: 'Refused' });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(json(res).errors[0].extensions.code, 'INVALID_PAYLOAD');
      assert.match(json(res).errors[0].message, /Stock too low/);
      const found = json(await send('GET', '/items/authors?filter[name][_eq]=Refused')).data;
      assert.deepEqual(found, []);
      // A Directus-shaped error (code + status) keeps its own code and status.
      off.push(
        onFilter('authors.items.update', () => {
          throw Object.assign(new Error('No editing today'), { code: 'FORBIDDEN', status: 403 });
        }),
      );
      const patched = await send('PATCH', '/items/authors/1', { bio: 'x' });
      assert.equal(patched.statusCode, 403, patched.body);
      assert.equal(json(patched).errors[0].extensions.code, 'FORBIDDEN');
      await settled();
      assert.equal(heard.length, 0);
    });

    it('a filter that throws after a nested write rolls the nested rows back too', async () => {
      off.push(
        onFilter('articles.items.create', () => {
          throw new Error('No articles');
        }),
      );
      const res = await send('POST', '/items/articles', { title: 'Nested refused', comments: [{ body: 'c' }] });
      assert.equal(res.statusCode, 400, res.body);
      const found = json(await send('GET', '/items/comments?filter[body][_eq]=c')).data;
      assert.deepEqual(found, []);
    });

    it('nested creates raise the actions of their own collection', async () => {
      const heard = actions('comments.items.create');
      const top = actions('articles.items.create');
      const res = await send('POST', '/items/articles?fields=id,comments', {
        title: 'Nested',
        comments: [{ body: 'one' }, { body: 'two' }],
      });
      assert.equal(res.statusCode, 200, res.body);
      await settled();
      assert.equal(top.length, 1);
      assert.deepEqual(heard.map((m) => String(m.key)).sort(), json(res).data.comments.map(String).sort());
    });

    it('nested payloads run the create, update and delete filters of their own collection', async () => {
      const seen: EventMeta[] = [];
      off.push(
        onFilter('comments.items.create', (payload, meta) => {
          seen.push({ ...meta, payload });
          return { ...(payload as Row), body: `${(payload as Row).body} (checked)` };
        }),
      );
      const res = await send('POST', '/items/articles?fields=id,comments.id,comments.body', {
        title: 'Nested filtered',
        comments: [{ body: 'first' }],
      });
      assert.equal(res.statusCode, 200, res.body);
      const article = json(res).data;
      assert.deepEqual(
        article.comments.map((c: Row) => c.body),
        ['first (checked)'],
      );
      assert.deepEqual(seen[0], { collection: 'comments', event: 'comments.items.create', payload: { body: 'first' } });
      const commentId = article.comments[0].id;
      const updates: EventMeta[] = [];
      off.push(
        onFilter('comments.items.update', (payload, meta) => {
          updates.push(meta);
          return { ...(payload as Row), body: 'edited by a hook' };
        }),
      );
      const upd = await send('PATCH', `/items/articles/${article.id}?fields=comments.body`, {
        comments: { update: [{ id: commentId, body: 'edited' }] },
      });
      assert.equal(upd.statusCode, 200, upd.body);
      assert.deepEqual(json(upd).data.comments, [{ body: 'edited by a hook' }]);
      assert.deepEqual((updates[0]!.keys as unknown[]).map(String), [String(commentId)]);
      off.push(
        onFilter('comments.items.delete', () => {
          throw new Error('Comments stay');
        }),
      );
      const del = await send('PATCH', `/items/articles/${article.id}`, { comments: { delete: [commentId] } });
      assert.equal(del.statusCode, 400, del.body);
      assert.match(json(del).errors[0].message, /Comments stay/);
      assert.equal((await send('GET', `/items/comments/${commentId}`)).statusCode, 200);
      // A nested create's filter that throws refuses the whole write: no article either.
      off.push(
        onFilter('items.create', (payload, meta) => {
          if (meta.collection === 'comments') throw new Error('No comments today');
          return payload;
        }),
      );
      const refused = await send('POST', '/items/articles', { title: 'Nested refused 2', comments: [{ body: 'x' }] });
      assert.equal(refused.statusCode, 400, refused.body);
      assert.match(json(refused).errors[0].message, /No comments today/);
      const none = json(await send('GET', '/items/articles?filter[title][_eq]=Nested%20refused%202')).data;
      assert.deepEqual(none, []);
    });

    it('update and delete: filter meta has the keys, actions have keys and payload', async () => {
      const created = json(await send('POST', '/items/authors', { name: 'To change' })).data;
      const filterMeta: EventMeta[] = [];
      off.push(
        onFilter('items.update', (payload, meta) => {
          filterMeta.push(meta);
          return { ...(payload as Row), bio: 'filtered' };
        }),
      );
      const updates = actions('items.update');
      const deletes = actions('items.delete');
      const patched = await send('PATCH', `/items/authors/${created.id}`, { name: 'Changed' });
      assert.equal(json(patched).data.bio, 'filtered');
      assert.deepEqual(filterMeta[0]!.keys, [String(created.id)]);
      assert.equal((await send('DELETE', `/items/authors/${created.id}`)).statusCode, 204);
      await settled();
      assert.deepEqual(updates[0]!.payload, { name: 'Changed', bio: 'filtered' });
      assert.deepEqual(updates[0]!.keys!, [created.id]);
      assert.deepEqual(deletes[0]!.keys, [created.id]);
      assert.deepEqual(deletes[0]!.payload, [created.id]);
    });

    it('a delete filter may refuse the delete', async () => {
      const created = json(await send('POST', '/items/authors', { name: 'Keep me' })).data;
      off.push(
        onFilter('authors.items.delete', () => {
          throw new Error('Keep it');
        }),
      );
      const res = await send('DELETE', `/items/authors/${created.id}`);
      assert.equal(res.statusCode, 400, res.body);
      assert.equal((await send('GET', `/items/authors/${created.id}`)).statusCode, 200);
    });

    it('GraphQL creates and imports run the filters and actions', async () => {
      off.push(onFilter('authors.items.create', (payload) => ({ ...(payload as Row), bio: 'via hook' })));
      const heard = actions('authors.items.create');
      const res = await t.request({
        method: 'POST',
        url: '/graphql',
        payload: { query: 'mutation { create_authors_item(data: {name: "GraphQL H"}) { id bio } }' },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(json(res).data.create_authors_item.bio, 'via hook');
      const imported = await t.request({
        method: 'POST',
        url: '/utils/import/authors',
        payload: 'name\nImp1\nImp2\n',
        headers: { 'content-type': 'text/csv' },
      });
      assert.equal(imported.statusCode, 200, imported.body);
      const rows = json(await send('GET', '/items/authors?filter[name][_starts_with]=Imp&fields=bio')).data;
      assert.deepEqual(
        rows.map((r: Row) => r.bio),
        ['via hook', 'via hook'],
      );
      await settled();
      assert.equal(heard.length, 3);
      assert.deepEqual(
        heard.slice(1).map((m) => (m.payload as Row).name),
        ['Imp1', 'Imp2'],
      );
    });

    it('system collections raise <scope>.create; logins raise auth.login', async () => {
      const roles = actions('roles.create');
      const logins = actions('auth.login');
      const role = json(await send('POST', '/roles', { name: 'Hook role' })).data;
      const bad = await t.request({
        method: 'POST',
        url: '/auth/login',
        token: null,
        payload: { email: ADMIN.email, password: 'wrong' },
      });
      assert.equal(bad.statusCode, 401);
      const good = await t.request({
        method: 'POST',
        url: '/auth/login',
        token: null,
        payload: { email: ADMIN.email, password: ADMIN.password },
      });
      assert.equal(good.statusCode, 200, good.body);
      await settled();
      assert.equal(String(roles[0]!.key), String(role.id));
      assert.deepEqual(
        logins.map((m) => m.status),
        ['fail', 'success'],
      );
      assert.equal((logins[1]!.payload as Row).password, undefined);
    });

    it('a filter that never answers is bounded: 503, nothing written, the server answers', async () => {
      off.push(onFilter('authors.items.create', () => new Promise(() => {})));
      const res = await send('POST', '/items/authors', { name: 'Never' });
      assert.equal(res.statusCode, 503, res.body);
      assert.equal(json(res).errors[0].extensions.code, 'SERVICE_UNAVAILABLE');
      off.forEach((f) => f());
      off = [];
      const found = json(await send('GET', '/items/authors?filter[name][_eq]=Never')).data;
      assert.deepEqual(found, []);
    });

    it('a failing action is reported, not the caller', async () => {
      off.push(
        onAction('items.create', () => {
          throw new Error('action failed');
        }),
      );
      const res = await send('POST', '/items/authors', { name: 'Action fails' });
      assert.equal(res.statusCode, 200, res.body);
      await settled();
    });

    it('a schedule runs each tick once across two schedulers over one database', async () => {
      const runs = new ScheduleRunsRepository(t.context.db);
      const ran: number[] = [];
      const claim = (id: string, tick: number) => runs.claim(id, tick);
      const a = new Scheduler(claim);
      const b = new Scheduler(claim);
      const handler = () => void ran.push(Date.now());
      a.schedule('* * * * * *', handler, 'test:every-second');
      b.schedule('* * * * * *', handler, 'test:every-second');
      // Two claims of the same tick: one wins.
      assert.equal(await runs.claim('test:direct', 1000), true);
      assert.equal(await runs.claim('test:direct', 1000), false);
      await new Promise((resolve) => setTimeout(resolve, 3500));
      await a.stop();
      await b.stop();
      const ticks = await t.context.db.query<{ tick: unknown }>(
        "select tick from service_schedule_runs where schedule = 'test:every-second'",
      );
      assert.ok(ran.length >= 2, `ran ${ran.length} times`);
      assert.equal(ran.length, ticks.length, 'one run per claimed tick');
    });
  });
}
