/**
 * /websocket with the real client (@directus/sdk realtime() over `ws`): handshake auth, subscribe → init, then
 * create/update/delete events with the items as the subscriber may read them (fields and item rules; an item leaving
 * the rules arrives as a delete), unsubscribe, ping/pong, and AUTH_FAILED for a bad token.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createDirectus, realtime, staticToken } from '@directus/sdk';
import WebSocket from 'ws';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { ADMIN, json, listenOnLoopback, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createPolicy, createUserWithPolicies } from '../helpers/access-fixture.js';
import { openWs } from '../helpers/ws-client.js';

type Message = Record<string, any>;

for (const client of testClients()) {
  // The SDK's subscription iterator listens for one message at a time, only while the consumer awaits it: a message
  // arriving between two `next()` calls is dropped (its `messageCallback`). So each test asks for the next message
  // BEFORE the write that causes it, as a `for await` loop running beside the writes would.
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

    const connect = async (token: string) => {
      const sdk = createDirectus(url, { globals: { WebSocket: WebSocket as any } })
        .with(staticToken(token))
        .with(realtime({ authMode: 'handshake', reconnect: false, heartbeat: false }));
      await sdk.connect();
      return sdk;
    };
    const post = async (body: unknown) => {
      const res = await t.request({ method: 'POST', url: '/items/authors?fields=id', payload: body as object });
      assert.equal(res.statusCode, 200, res.body);
      return json(res).data;
    };

    it('an admin gets init, then create, update and delete events of the collection', async () => {
      const sdk = await connect(ADMIN.token);
      try {
        const { subscription, unsubscribe } = await sdk.subscribe('authors', {
          query: { fields: ['id', 'name'], filter: { name: { _starts_with: 'WS ' } } },
          uid: 'admin-sub',
        });
        const messages = subscription[Symbol.asyncIterator]();
        const next = async (): Promise<Message> => (await messages.next()).value as Message;
        const init = await next();
        assert.equal(init.event, 'init');
        assert.equal(init.uid, 'admin-sub');
        assert.deepEqual(init.data, []);
        let pending = next();
        const created = await post({ name: 'WS one', bio: 'not asked for' });
        assert.deepEqual(await pending, {
          type: 'subscription',
          event: 'create',
          data: [{ id: created.id, name: 'WS one' }],
          uid: 'admin-sub',
        });
        pending = next();
        const patched = await t.request({
          method: 'PATCH',
          url: `/items/authors/${created.id}`,
          payload: { name: 'WS one, renamed' },
        });
        assert.equal(patched.statusCode, 200, patched.body);
        assert.deepEqual((await pending).data, [{ id: created.id, name: 'WS one, renamed' }]);
        pending = next();
        await t.request({ method: 'DELETE', url: `/items/authors/${created.id}` });
        const deleted = await pending;
        assert.equal(deleted.event, 'delete');
        assert.deepEqual(deleted.data.map(String), [String(created.id)]);
        unsubscribe();
      } finally {
        sdk.disconnect();
      }
    });

    it('a restricted user gets only the rows and fields it may read; an item leaving its rules arrives as a delete', async () => {
      const policy = await createPolicy(t, {
        permissions: [{ collection: 'authors', fields: 'id,name', permissions: { name: { _starts_with: 'Visible' } } }],
      });
      const user = await createUserWithPolicies(t, [policy]);
      const sdk = await connect(user.token);
      try {
        const { subscription } = await sdk.subscribe('authors', { query: { fields: ['*'] } });
        const messages = subscription[Symbol.asyncIterator]();
        const next = async (): Promise<Message> => (await messages.next()).value as Message;
        assert.equal((await next()).event, 'init');
        let pending = next();
        await post({ name: 'Hidden author', bio: 'secret' });
        const visible = await post({ name: 'Visible author', bio: 'secret' });
        const created = await pending;
        assert.equal(created.event, 'create');
        assert.deepEqual(
          created.data,
          [{ id: visible.id, name: 'Visible author' }],
          'no event about the hidden row, no field outside the rule',
        );
        pending = next();
        await t.request({ method: 'PATCH', url: `/items/authors/${visible.id}`, payload: { name: 'Hidden now' } });
        const left = await pending;
        assert.equal(left.event, 'delete');
        assert.deepEqual(left.data.map(String), [String(visible.id)]);
        pending = next();
        await t.request({ method: 'PATCH', url: `/items/authors/${visible.id}`, payload: { name: 'Visible again' } });
        const back = await pending;
        assert.equal(back.event, 'create');
        assert.deepEqual(back.data, [{ id: visible.id, name: 'Visible again' }]);
      } finally {
        sdk.disconnect();
      }
    });

    it('answers ping with pong, and a bad token with AUTH_FAILED', async () => {
      const ws = await openWs(url);
      const { next } = ws;
      ws.send({ type: 'auth', access_token: ADMIN.token });
      assert.deepEqual(await next(), { type: 'auth', status: 'ok' });
      ws.send({ type: 'ping' });
      assert.deepEqual(await next(), { type: 'pong' });
      ws.send({ type: 'subscribe', collection: 'no_such_collection', uid: 'x' });
      const refused = await next();
      assert.equal(refused.status, 'error');
      assert.equal(refused.uid, 'x');
      assert.equal(refused.error.code, 'FORBIDDEN');
      ws.send({ type: 'auth', access_token: 'not-a-token' });
      assert.equal((await next()).error.code, 'AUTH_FAILED');
      ws.close();
    });
  });
}
