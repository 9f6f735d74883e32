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

type Message = Record<string, any>;

/**
 * Reads the SDK's subscription without pause: its generator listens for the next message only while awaited, so a
 * message arriving between two `next()` calls (an event sent while the test awaited its REST write) was lost.
 */
function pump(subscription: AsyncIterable<unknown>): () => Promise<Message> {
  const buffered: Message[] = [];
  const waiting: ((message: Message) => void)[] = [];
  void (async () => {
    for await (const message of subscription) {
      const waiter = waiting.shift();
      if (waiter) waiter(message as Message);
      else buffered.push(message as Message);
    }
  })();
  return () =>
    buffered.length ? Promise.resolve(buffered.shift()!) : new Promise<Message>((resolve) => waiting.push(resolve));
}

for (const client of testClients()) {
  // The events this suite used to lose were dropped by the SDK's iterator, not the server (see `pump`).
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
        const next = pump(subscription);
        const init = await next();
        assert.equal(init.event, 'init');
        assert.equal(init.uid, 'admin-sub');
        assert.deepEqual(init.data, []);
        const created = await post({ name: 'WS one', bio: 'not asked for' });
        assert.deepEqual(await next(), {
          type: 'subscription',
          event: 'create',
          data: [{ id: created.id, name: 'WS one' }],
          uid: 'admin-sub',
        });
        const patched = await t.request({
          method: 'PATCH',
          url: `/items/authors/${created.id}`,
          payload: { name: 'WS one, renamed' },
        });
        assert.equal(patched.statusCode, 200, patched.body);
        assert.deepEqual((await next()).data, [{ id: created.id, name: 'WS one, renamed' }]);
        await t.request({ method: 'DELETE', url: `/items/authors/${created.id}` });
        const deleted = await next();
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
        const next = pump(subscription);
        assert.equal((await next()).event, 'init');
        await post({ name: 'Hidden author', bio: 'secret' });
        const visible = await post({ name: 'Visible author', bio: 'secret' });
        const created = await next();
        assert.equal(created.event, 'create');
        assert.deepEqual(
          created.data,
          [{ id: visible.id, name: 'Visible author' }],
          'no event about the hidden row, no field outside the rule',
        );
        await t.request({ method: 'PATCH', url: `/items/authors/${visible.id}`, payload: { name: 'Hidden now' } });
        const left = await next();
        assert.equal(left.event, 'delete');
        assert.deepEqual(left.data.map(String), [String(visible.id)]);
        await t.request({ method: 'PATCH', url: `/items/authors/${visible.id}`, payload: { name: 'Visible again' } });
        const back = await next();
        assert.equal(back.event, 'create');
        assert.deepEqual(back.data, [{ id: visible.id, name: 'Visible again' }]);
      } finally {
        sdk.disconnect();
      }
    });

    it('answers ping with pong, and a bad token with AUTH_FAILED', async () => {
      const socket = new WebSocket(`${url.replace('http', 'ws')}/websocket`);
      const received: Message[] = [];
      const waiting: ((m: Message) => void)[] = [];
      socket.on('message', (data) => {
        const message = JSON.parse(String(data)) as Message;
        const waiter = waiting.shift();
        if (waiter) waiter(message);
        else received.push(message);
      });
      const next = () =>
        received.length ? Promise.resolve(received.shift()!) : new Promise<Message>((resolve) => waiting.push(resolve));
      await new Promise((resolve) => socket.once('open', resolve));
      socket.send(JSON.stringify({ type: 'auth', access_token: ADMIN.token }));
      assert.deepEqual(await next(), { type: 'auth', status: 'ok' });
      socket.send(JSON.stringify({ type: 'ping' }));
      assert.deepEqual(await next(), { type: 'pong' });
      socket.send(JSON.stringify({ type: 'subscribe', collection: 'no_such_collection', uid: 'x' }));
      const refused = await next();
      assert.equal(refused.status, 'error');
      assert.equal(refused.uid, 'x');
      assert.equal(refused.error.code, 'FORBIDDEN');
      socket.send(JSON.stringify({ type: 'auth', access_token: 'not-a-token' }));
      assert.equal((await next()).error.code, 'AUTH_FAILED');
      socket.close();
    });
  });
}
