/**
 * The subscription messages of /websocket as Directus 11 sends them (Directus docs: WebSockets, Subscriptions): a
 * subscription without a `uid` is apart from every one with a `uid`; `unsubscribe` is answered; `event` picks the changes sent;
 * one message per created item and per item of an array update, delete keys as strings.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { ADMIN, json, listenOnLoopback, startTestApp, type TestApp } from '../helpers/test-app.js';
import { openWs, type WsClient } from '../helpers/ws-client.js';

for (const client of testClients()) {
  describe(`websocket subscriptions (${clientLabel(client)})`, () => {
    let t: TestApp;
    let url: string;
    before(async () => {
      t = await startTestApp(client, { env: { WEBSOCKETS_ENABLED: 'true', WEBSOCKETS_HEARTBEAT_ENABLED: 'false' } });
      url = await listenOnLoopback(t);
    });
    after(async () => {
      await t?.close();
    });

    const authed = async (): Promise<WsClient> => {
      const ws = await openWs(url);
      ws.send({ type: 'auth', access_token: ADMIN.token });
      assert.equal((await ws.next()).status, 'ok');
      return ws;
    };
    /** The next message; a message that does not come within 5 s closes the socket (the test fails, not hangs). */
    const soon = async (ws: WsClient) => {
      const timer = setTimeout(() => ws.close(), 5_000);
      try {
        return await ws.next();
      } finally {
        clearTimeout(timer);
      }
    };
    const post = async (name: string): Promise<number> => {
      const res = await t.request({ method: 'POST', url: '/items/authors?fields=id', payload: { name } });
      assert.equal(res.statusCode, 200, res.body);
      return (json(res).data as { id: number }).id;
    };

    it('a subscription without uid is apart from a later one whose uid is "1"', async () => {
      const ws = await authed();
      ws.send({ type: 'subscribe', collection: 'authors', query: { fields: ['id'] } });
      const first = await ws.next();
      assert.equal(first.event, 'init');
      assert.equal('uid' in first, false);
      ws.send({ type: 'subscribe', collection: 'authors', query: { fields: ['id'] }, uid: '1' });
      assert.equal((await ws.next()).uid, '1');
      const id = await post('Heard twice');
      const heard = [await ws.next(), await ws.next()];
      assert.deepEqual(heard.map((m) => m.uid ?? null).sort(), ['1', null], JSON.stringify(heard));
      for (const message of heard) assert.deepEqual([message.event, message.data], ['create', [{ id }]]);
      ws.close();
    });

    it('a subscribe with event gets only that kind of change, and an init without rows', async () => {
      const ws = await authed();
      ws.send({
        type: 'subscribe',
        collection: 'authors',
        query: { fields: ['id', 'name'] },
        event: 'update',
        uid: 'u',
      });
      assert.deepEqual(await ws.next(), { type: 'subscription', event: 'init', uid: 'u' });
      const patch = async (id: number, name: string) => {
        const res = await t.request({ method: 'PATCH', url: `/items/authors/${id}`, payload: { name } });
        assert.equal(res.statusCode, 200, res.body);
      };
      const first = await post('Event one');
      await patch(first, 'Event one, renamed');
      assert.equal((await t.request({ method: 'DELETE', url: `/items/authors/${first}` })).statusCode, 204);
      const second = await post('Event two');
      await patch(second, 'Event two, renamed');
      // Events of a collection arrive in commit order: a create or delete sent would come before these.
      assert.deepEqual(await ws.next(), {
        type: 'subscription',
        event: 'update',
        data: [{ id: first, name: 'Event one, renamed' }],
        uid: 'u',
      });
      assert.deepEqual(await ws.next(), {
        type: 'subscription',
        event: 'update',
        data: [{ id: second, name: 'Event two, renamed' }],
        uid: 'u',
      });
      ws.send({ type: 'subscribe', collection: 'authors', event: 'upsert', uid: 'bad' });
      const refused = await ws.next();
      assert.deepEqual(
        [refused.type, refused.status, refused.error.code, refused.uid],
        ['subscribe', 'error', 'INVALID_PAYLOAD', 'bad'],
      );
      ws.close();
    });

    it('sends one message per created item, and a delete with its keys as strings, as Directus does', async () => {
      const ws = await authed();
      ws.send({
        type: 'subscribe',
        collection: 'authors',
        query: { fields: ['id', 'name'], filter: { name: { _starts_with: 'Batch ' } } },
        uid: 'b',
      });
      assert.equal((await ws.next()).event, 'init');
      const names = ['Batch one', 'Batch two', 'Batch three'];
      const res = await t.request({
        method: 'POST',
        url: '/items/authors?fields=id',
        payload: names.map((name) => ({ name })),
      });
      assert.equal(res.statusCode, 200, res.body);
      const ids = (json(res).data as { id: number }[]).map((row) => row.id);
      const created = [await ws.next(), await ws.next(), await ws.next()];
      for (const message of created) assert.deepEqual([message.event, message.data.length], ['create', 1]);
      assert.deepEqual(created.map((message) => message.data[0].name).sort(), [...names].sort());
      const removed = await t.request({ method: 'DELETE', url: '/items/authors', payload: ids });
      assert.equal(removed.statusCode, 204, removed.body);
      const deleted = await ws.next();
      assert.equal(deleted.event, 'delete');
      assert.deepEqual([...deleted.data].sort(), ids.map(String).sort());
      ws.close();
    });

    it('an update of an array of items sends one message per item; one of keys with data, one message', async () => {
      const ws = await authed();
      ws.send({
        type: 'subscribe',
        collection: 'authors',
        query: { fields: ['id', 'name'], filter: { name: { _starts_with: 'Apart ' } } },
        uid: 'p',
      });
      assert.equal((await soon(ws)).event, 'init');
      const ids = [await post('Apart a'), await post('Apart b'), await post('Apart c')];
      for (let i = 0; i < ids.length; i++) assert.equal((await soon(ws)).event, 'create');
      // An array: Directus updates each item on its own (updateBatch → updateOne), one event and message each.
      const batch = await t.request({
        method: 'PATCH',
        url: '/items/authors',
        payload: ids.map((id, i) => ({ id, name: `Apart batch ${i}` })),
      });
      assert.equal(batch.statusCode, 200, batch.body);
      const apart = [await soon(ws), await soon(ws), await soon(ws)];
      for (const message of apart) assert.deepEqual([message.event, message.data.length], ['update', 1]);
      assert.deepEqual(
        apart.map((message) => message.data[0]).sort((a, b) => a.id - b.id),
        ids.map((id, i) => ({ id, name: `Apart batch ${i}` })),
      );
      // Keys with data: one update of them all (updateMany), one message with every row, as Directus sends it.
      const keyed = await t.request({
        method: 'PATCH',
        url: '/items/authors',
        payload: { keys: ids, data: { name: 'Apart keyed' } },
      });
      assert.equal(keyed.statusCode, 200, keyed.body);
      const together = await soon(ws);
      assert.equal(together.event, 'update');
      assert.deepEqual(
        [...together.data].sort((a, b) => a.id - b.id),
        ids.map((id) => ({ id, name: 'Apart keyed' })),
      );
      const after = await post('Apart after');
      assert.deepEqual(await soon(ws), {
        type: 'subscription',
        event: 'create',
        data: [{ id: after, name: 'Apart after' }],
        uid: 'p',
      });
      ws.close();
    });

    it('answers unsubscribe as Directus does, with or without a uid; nothing is heard after it', async () => {
      const ws = await authed();
      ws.send({ type: 'subscribe', collection: 'authors', query: { fields: ['id'] }, uid: 'u' });
      assert.equal((await ws.next()).event, 'init');
      ws.send({ type: 'unsubscribe', uid: 'u' });
      assert.deepEqual(await ws.next(), { type: 'subscription', event: 'unsubscribe', uid: 'u' });
      ws.send({ type: 'subscribe', collection: 'authors', query: { fields: ['id'] } });
      assert.equal((await ws.next()).event, 'init');
      ws.send({ type: 'unsubscribe' });
      assert.deepEqual(await ws.next(), { type: 'subscription', event: 'unsubscribe' });
      await post('Heard by nobody');
      ws.send({ type: 'ping', uid: 'after' });
      assert.deepEqual(await ws.next(), { type: 'pong', uid: 'after' }, 'no event came before the pong');
      ws.close();
    });
  });
}
