/**
 * The real @directus/sdk `realtime()` composable against a real listening Strata (Node 20 has no global WebSocket:
 * `ws` is passed in `globals`): handshake auth with a static token and with the tokens of a json login, strict
 * auth (the token in the URL), `subscribe` consumed by a `for await` loop running beside the writes (as an app would:
 * the SDK's iterator only listens while it is being awaited), and `sendMessage` for `items` answered on the socket.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { authentication, createDirectus, realtime, rest, staticToken } from '@directus/sdk';
import WebSocket from 'ws';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { ADMIN, json, listenOnLoopback, startTestApp, type TestApp } from '../helpers/test-app.js';

type Message = Record<string, any>;

/** Collects what an async iterable yields, in a loop of its own; `next()` waits for the next item. */
function consume(iterable: AsyncIterable<unknown>) {
  const items: Message[] = [];
  const waiting: ((m: Message) => void)[] = [];
  void (async () => {
    for await (const item of iterable) {
      const waiter = waiting.shift();
      if (waiter) waiter(item as Message);
      else items.push(item as Message);
    }
  })();
  return {
    next: () =>
      items.length ? Promise.resolve(items.shift()!) : new Promise<Message>((resolve) => waiting.push(resolve)),
  };
}

for (const client of testClients()) {
  for (const mode of ['handshake', 'strict'] as const) {
    describe(`@directus/sdk realtime, ${mode} auth (${clientLabel(client)})`, () => {
      let t: TestApp;
      let url: string;
      before(async () => {
        t = await startTestApp(client, {
          env: { WEBSOCKETS_ENABLED: 'true', WEBSOCKETS_REST_AUTH: mode, WEBSOCKETS_HEARTBEAT_PERIOD: '30' },
        });
        url = await listenOnLoopback(t);
      });
      after(async () => {
        await t?.close();
      });

      it(
        'subscribes with a static token; a for-await loop receives init and every event in order',
        { timeout: 60_000 },
        async () => {
          const sdk = createDirectus(url, { globals: { WebSocket: WebSocket as any } })
            .with(staticToken(ADMIN.token))
            .with(realtime({ authMode: mode, reconnect: false }));
          await sdk.connect();
          try {
            const { subscription, unsubscribe } = await sdk.subscribe('authors', {
              query: { fields: ['id', 'name'], filter: { name: { _starts_with: 'SDK ' } } },
            });
            const events = consume(subscription);
            const init = await events.next();
            assert.equal(init.event, 'init');
            assert.deepEqual(init.data, []);
            // The SDK's iterator listens for one message at a time: two frames that reach it in one socket read
            // lose the second (the listener is re-added only after the first is consumed). So, as an app that
            // renders each change would, every write waits for its event before the next write is sent.
            const seen: [string, string][] = [];
            const awaitItems = async (count: number) => {
              const target = seen.length + count;
              while (seen.length < target) {
                const message = await events.next();
                for (const row of message.data as (Message | number)[])
                  seen.push([message.event, typeof row === 'object' ? row.name : String(row)]);
              }
            };
            const ids: number[] = [];
            for (const name of ['SDK one', 'SDK two', 'SDK three']) {
              const res = await t.request({ method: 'POST', url: '/items/authors?fields=id', payload: { name } });
              ids.push(json(res).data.id);
              await awaitItems(1);
            }
            await t.request({ method: 'PATCH', url: `/items/authors/${ids[0]}`, payload: { name: 'SDK one, again' } });
            await awaitItems(1);
            await t.request({ method: 'DELETE', url: '/items/authors', payload: ids.slice(1) });
            await awaitItems(2);
            assert.deepEqual(seen, [
              ['create', 'SDK one'],
              ['create', 'SDK two'],
              ['create', 'SDK three'],
              ['update', 'SDK one, again'],
              ...ids.slice(1).map((id): [string, string] => ['delete', String(id)]),
            ]);
            unsubscribe();
          } finally {
            sdk.disconnect();
          }
        },
      );

      it('sendMessage runs an items message; the answer comes back with its uid', { timeout: 60_000 }, async () => {
        const sdk = createDirectus(url, { globals: { WebSocket: WebSocket as any } })
          .with(staticToken(ADMIN.token))
          .with(realtime({ authMode: mode, reconnect: false }));
        await sdk.connect();
        try {
          const answer = new Promise<Message>((resolve) => {
            const stop = sdk.onWebSocket('message', (message: Message) => {
              if (message.type === 'items' && message.uid === 'sdk-create') {
                stop();
                resolve(message);
              }
            });
          });
          sdk.sendMessage({
            type: 'items',
            action: 'create',
            collection: 'authors',
            data: { name: 'Sent by the SDK' },
            query: { fields: ['name'] },
            uid: 'sdk-create',
          });
          assert.deepEqual(await answer, { type: 'items', data: { name: 'Sent by the SDK' }, uid: 'sdk-create' });
        } finally {
          sdk.disconnect();
        }
      });

      it(
        'authenticates with the access token of a json login (authentication composable)',
        { timeout: 60_000 },
        async () => {
          const sdk = createDirectus(url, { globals: { WebSocket: WebSocket as any } })
            .with(authentication('json', { autoRefresh: false }))
            .with(rest())
            .with(realtime({ authMode: mode, reconnect: false }));
          await sdk.login(ADMIN.email, ADMIN.password);
          await sdk.connect();
          try {
            const { subscription } = await sdk.subscribe('authors', { query: { fields: ['name'], limit: 1 } });
            const init = await consume(subscription).next();
            assert.equal(init.event, 'init');
            assert.equal(init.data.length, 1);
          } finally {
            sdk.disconnect();
          }
        },
      );
    });
  }
}
