/**
 * A graphql-ws subscription is live from its `subscribe` message: a write made right after the client sent it (the
 * connection acknowledged, no message awaited in between) is announced, round after round, as Directus announces it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { ADMIN, listenOnLoopback, startTestApp, type TestApp } from '../helpers/test-app.js';

type Frame = Record<string, any>;

/** A raw graphql-transport-ws client: frames kept in arrival order until taken. */
async function openGraphQLSocket(url: string, token: string) {
  const socket = new WebSocket(url, 'graphql-transport-ws');
  const received: Frame[] = [];
  const waiting: ((frame: Frame) => void)[] = [];
  socket.on('message', (data) => {
    const frame = JSON.parse(String(data)) as Frame;
    const waiter = waiting.shift();
    if (waiter) waiter(frame);
    else received.push(frame);
  });
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  const next = (ms: number): Promise<Frame | null> => {
    if (received.length) return Promise.resolve(received.shift()!);
    return new Promise((resolve) => {
      const take = (frame: Frame) => {
        clearTimeout(timer);
        resolve(frame);
      };
      const timer = setTimeout(() => {
        waiting.splice(waiting.indexOf(take), 1);
        resolve(null);
      }, ms);
      waiting.push(take);
    });
  };
  /** Resolves once the frame is handed to the network. */
  const send = (frame: Frame) =>
    new Promise<void>((resolve, reject) =>
      socket.send(JSON.stringify(frame), (error) => (error ? reject(error) : resolve())),
    );
  await send({ type: 'connection_init', payload: { access_token: token } });
  assert.equal((await next(10_000))?.type, 'connection_ack');
  return { send, next, close: () => socket.close() };
}

for (const client of testClients()) {
  describe(`GraphQL subscriptions start at their subscribe message (${clientLabel(client)})`, () => {
    let t: TestApp;
    let base: string;

    before(async () => {
      t = await startTestApp(client, {
        env: { WEBSOCKETS_ENABLED: 'true', WEBSOCKETS_HEARTBEAT_ENABLED: 'false' },
      });
      base = await listenOnLoopback(t);
      // The time between reading a subscribe message and the hub holding the subscription (the token checked, the
      // rate limit, the caller's schema built after a schema change, the document validated) made longer, so that
      // the write below lands in it every round instead of now and then.
      const hub = t.context.subscriptions;
      const subscribe = hub.subscribe.bind(hub);
      hub.subscribe = async (request) => {
        await new Promise((resolve) => setTimeout(resolve, 150));
        return subscribe(request);
      };
    });
    after(async () => {
      await t?.close();
    });

    it('a create made right after the subscribe message is announced, every round', async () => {
      const lost: number[] = [];
      for (let round = 1; round <= 6; round++) {
        const socket = await openGraphQLSocket(`${base.replace('http', 'ws')}/graphql`, ADMIN.token);
        try {
          await socket.send({
            id: 'sub',
            type: 'subscribe',
            payload: { query: `subscription { authors_mutated { event data { name } } }` },
          });
          // The server has read the subscribe message once it answers the ping sent after it.
          await socket.send({ type: 'ping' });
          assert.equal((await socket.next(3_000))?.type, 'pong');
          const res = await t.request({
            method: 'POST',
            url: '/items/authors',
            payload: { name: `Round ${round}` },
          });
          assert.equal(res.statusCode, 200, res.body);
          const frame = await socket.next(3_000);
          if (frame === null) lost.push(round);
          else
            assert.deepStrictEqual(frame.payload?.data?.authors_mutated, {
              event: 'create',
              data: { name: `Round ${round}` },
            });
        } finally {
          socket.close();
        }
      }
      assert.deepStrictEqual(lost, [], 'rounds whose create was not announced');
    });
  });
}
