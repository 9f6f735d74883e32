/**
 * A realtime subscriber that loses the right to read a collection stops getting its events at once, and is told:
 * its role changed, an admin demoted, its policy detached (DELETE /access/{id}), moved to a role without policies —
 * the subscription ends with FORBIDDEN (/websocket: a `subscribe` error; graphql-ws: an error, then `complete`) — or
 * its login logged out (/websocket: AUTH_FAILED; graphql-ws: closed with 4403). On both protocols and every database.
 * The item written right after the change is announced to an admin's socket and never to the subscriber; no clock
 * is moved and nothing waits for a recheck period. Before, a socket kept the rights it was resolved with (30 events of
 * 30 in the attack run) and a logout showed only at the once-a-second recheck.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPolicy } from '../helpers/access-fixture.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { ADMIN, listenOnLoopback, startTestApp, type TestApp } from '../helpers/test-app.js';
import {
  apiOf,
  createAuthor,
  eventName,
  graphqlSubscriber,
  messagesUntil,
  restSubscriber,
  roleWith,
  subscriberFor,
  WAYS,
  type Api,
} from '../helpers/realtime-rights.js';
import type { MessageSocket } from '../helpers/socket-messages.js';

const WS_ENV = { WEBSOCKETS_ENABLED: 'true', WEBSOCKETS_HEARTBEAT_ENABLED: 'false' };

for (const client of testClients()) {
  describe(`realtime follows the subscriber's rights (${clientLabel(client)})`, () => {
    let t: TestApp;
    let http: string;
    let api: Api;
    let observer: MessageSocket;
    const sockets: MessageSocket[] = [];
    before(async () => {
      t = await startTestApp(client, { env: WS_ENV });
      http = await listenOnLoopback(t);
      api = apiOf(t.app);
      observer = await restSubscriber(http, ADMIN.token);
      sockets.push(observer);
    });
    after(async () => {
      for (const socket of sockets) socket.close();
      await Promise.all(sockets.map((socket) => socket.closed));
      // Every closed socket stopped listening for rights notices (none is kept alive by them).
      for (let poll = 0; poll < 200 && t.context.rights.size > 0; poll++)
        await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(t.context.rights.size, 0, 'no closed socket is still watched');
      await t?.close();
    });

    /** Creates an author and waits until the admin's socket has it: the hub has fanned it out by then. */
    const announced = async (name: string) => {
      await createAuthor(api, name);
      const seen = await messagesUntil(observer, (m) => eventName(m) === name);
      assert.ok(
        seen.every((m) => m.type === 'subscription'),
        JSON.stringify(seen),
      );
    };

    for (const way of WAYS) {
      it(`/websocket: ${way} stops the events at once and tells the subscription`, async () => {
        const subscriber = await subscriberFor(t, way);
        const ws = await restSubscriber(http, subscriber.token);
        sockets.push(ws);
        await announced(`Before ${way}`);
        assert.equal(eventName(await ws.next()), `Before ${way}`);
        await subscriber.lose();
        await announced(`After ${way}`);
        const told = await messagesUntil(ws, (m) => m.status === 'error');
        const expected =
          way === 'logout'
            ? { type: 'auth', code: 'AUTH_FAILED' }
            : { type: 'subscribe', code: 'FORBIDDEN', uid: 's' as string | undefined };
        const last = told.at(-1)!;
        assert.deepEqual(
          { type: last.type, code: last.error?.code, ...(way === 'logout' ? {} : { uid: last.uid }) },
          expected,
        );
        ws.send({ type: 'ping', uid: 'p' });
        const rest = await messagesUntil(ws, (m) => m.type === 'pong');
        const events = [...told, ...rest].map(eventName).filter((name) => name !== null);
        assert.deepEqual(events, [], 'no event after the change');
        await announced(`Later ${way}`);
        ws.send({ type: 'ping', uid: 'q' });
        assert.deepEqual(await ws.next(), { type: 'pong', uid: 'q' }, 'nor any later');
      });

      it(`graphql-ws: ${way} stops the events at once and tells the operation`, async () => {
        const subscriber = await subscriberFor(t, way);
        const ws = await graphqlSubscriber(t, http, subscriber.token);
        sockets.push(ws);
        await announced(`GraphQL before ${way}`);
        assert.equal(eventName(await ws.next()), `GraphQL before ${way}`);
        await subscriber.lose();
        await announced(`GraphQL after ${way}`);
        if (way === 'logout') {
          const seen: string[] = [];
          await assert.rejects(async () => {
            for (;;) seen.push(JSON.stringify(await ws.next()));
          }, /socket closed/);
          assert.equal((await ws.closed).code, 4403);
          assert.deepEqual(seen, [], 'nothing after the logout');
          return;
        }
        const told = await messagesUntil(ws, (m) => m.type === 'complete');
        assert.deepEqual(
          told.map((m) => (m.type === 'next' ? `next:${m.payload.errors?.[0]?.extensions?.code}` : m.type)),
          ['next:FORBIDDEN', 'complete'],
          JSON.stringify(told),
        );
        ws.send({ type: 'ping' });
        assert.deepEqual(await ws.next(), { type: 'pong' }, 'no event after the change');
      });
    }

    it('/websocket: a role reading fewer fields narrows a `*` subscription and ends one naming the field', async () => {
      const subscriber = await subscriberFor(t, 'role changed');
      const ws = await restSubscriber(http, subscriber.token);
      sockets.push(ws);
      ws.send({ type: 'subscribe', collection: 'authors', uid: 'all', query: { fields: ['*'] } });
      assert.equal((await ws.next()).event, 'init');
      const idOnly = await createPolicy(t, { permissions: [{ collection: 'authors', fields: 'id' }] });
      const role = await roleWith(t, [idOnly]);
      const moved = await api({ method: 'PATCH', url: `/users/${subscriber.user}`, payload: { role } });
      assert.equal(moved.statusCode, 200, moved.body);
      const told = await messagesUntil(ws, (m) => m.status === 'error');
      assert.deepEqual(
        told.map((m) => `${m.uid}:${m.error?.code}`),
        ['s:FORBIDDEN'],
        'the subscription naming `name` ends',
      );
      const id = await createAuthor(api, 'Narrowed');
      const next = await ws.next();
      assert.deepEqual(next, { type: 'subscription', event: 'create', data: [{ id }], uid: 'all' });
    });
  });
}
