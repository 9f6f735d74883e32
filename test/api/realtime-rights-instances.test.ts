/**
 * Rights lost through another instance reach the subscribers of this one: two apps on one database, the subscriber's
 * socket on A, the change made through B's API. Without Redis (B's notice is a change counter that A polls) and with
 * Redis (pub/sub; items written on B then reach A's subscribers too, so the write after the change is made on B).
 * A role change ends the subscription with FORBIDDEN on /websocket and on graphql-ws; a logout on B tells A's socket
 * AUTH_FAILED. Nothing written after the change reaches the subscriber. On every database; Redis when TEST_REDIS_URL.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { ADMIN, startSecondInstance, startTestApp, type SecondInstance, type TestApp } from '../helpers/test-app.js';
import {
  apiOf,
  createAuthor,
  eventName,
  graphqlSubscriber,
  messagesUntil,
  restSubscriber,
  subscriberFor,
  type Api,
} from '../helpers/realtime-rights.js';
import type { MessageSocket } from '../helpers/socket-messages.js';

const WS_ENV = { WEBSOCKETS_ENABLED: 'true', WEBSOCKETS_HEARTBEAT_ENABLED: 'false' };
const redis = process.env.TEST_REDIS_URL;

for (const client of testClients()) {
  for (const withRedis of [false, true]) {
    const label = `${clientLabel(client)}, ${withRedis ? 'Redis' : 'no Redis'}`;
    describe(
      `realtime rights changed through another instance (${label})`,
      { skip: withRedis && !redis ? 'needs TEST_REDIS_URL' : false },
      () => {
        let a: TestApp;
        let b: SecondInstance;
        let http: string;
        let apiA: Api;
        let apiB: Api;
        let observer: MessageSocket;
        const sockets: MessageSocket[] = [];
        before(async () => {
          const shared: Record<string, string> = withRedis
            ? { REDIS: redis!, REDIS_NAMESPACE: `strata-rights-${randomBytes(4).toString('hex')}` }
            : {};
          a = await startTestApp(client, { env: { ...WS_ENV, ...shared } });
          b = await startSecondInstance(a, shared);
          // The sockets on A's first worker (in pair mode its own port): the observer's event then shows that the hub
          // of the sockets under test has fanned it out, and their operations are counted in t.context's hub.
          http = await a.listen(0);
          apiA = apiOf(a.app);
          apiB = apiOf(b.app);
          observer = await restSubscriber(http, ADMIN.token);
          sockets.push(observer);
        });
        after(async () => {
          for (const socket of sockets) socket.close();
          await b?.close();
          await a?.close();
        });

        /**
         * An author written after the change, announced to A's admin socket (so A's hub has fanned it out): written on
         * B with Redis (which carries it to A), on A without (the database bus carries no items).
         */
        const announced = async (name: string) => {
          await createAuthor(withRedis ? apiB : apiA, name);
          await messagesUntil(observer, (m) => eventName(m) === name);
        };

        const noEventsAfter = async (ws: MessageSocket, told: object[], ping: object, pong: string) => {
          ws.send(ping);
          const rest = await messagesUntil(ws, (m) => m.type === pong);
          assert.deepEqual([...told, ...rest].map(eventName).filter(Boolean), [], 'no event after the change');
        };

        it('/websocket on A: a role changed on B ends the subscription with FORBIDDEN', async () => {
          const subscriber = await subscriberFor(a, 'role changed', apiB);
          const ws = await restSubscriber(http, subscriber.token);
          sockets.push(ws);
          await subscriber.lose();
          const told = await messagesUntil(ws, (m) => m.status === 'error');
          assert.deepEqual([told.at(-1)!.type, told.at(-1)!.error.code], ['subscribe', 'FORBIDDEN']);
          await announced('After a role change elsewhere');
          await noEventsAfter(ws, told, { type: 'ping' }, 'pong');
        });

        it('/websocket on A: a logout on B tells the socket AUTH_FAILED', async () => {
          const subscriber = await subscriberFor(a, 'logout', apiB);
          const ws = await restSubscriber(http, subscriber.token);
          sockets.push(ws);
          await subscriber.lose();
          const told = await messagesUntil(ws, (m) => m.status === 'error');
          assert.deepEqual([told.at(-1)!.type, told.at(-1)!.error.code], ['auth', 'AUTH_FAILED']);
          await announced('After a logout elsewhere');
          await noEventsAfter(ws, told, { type: 'ping' }, 'pong');
        });

        it('graphql-ws on A: a role changed on B ends the operation with FORBIDDEN', async () => {
          const subscriber = await subscriberFor(a, 'role changed', apiB);
          const ws = await graphqlSubscriber(a, http, subscriber.token);
          sockets.push(ws);
          await subscriber.lose();
          const told = await messagesUntil(ws, (m) => m.type === 'complete');
          assert.deepEqual(
            told.map((m) => (m.type === 'next' ? `next:${m.payload.errors?.[0]?.extensions?.code}` : m.type)),
            ['next:FORBIDDEN', 'complete'],
          );
          await announced('After a role change elsewhere (GraphQL)');
          await noEventsAfter(ws, told, { type: 'ping' }, 'pong');
        });
      },
    );
  }
}
