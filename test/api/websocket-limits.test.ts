/**
 * /websocket limits and bad frames: subscriptions per connection, message size (answered, then closed past twice
 * the limit), binary / non-JSON / wrongly typed frames answered INVALID_PAYLOAD without a crash, connections per IP
 * (refused at the upgrade) and per user (refused at `auth`), the message rate through the per-IP rate limiter
 * (REQUESTS_EXCEEDED), the heartbeat (a silent client is closed, one that answers stays), and a slow consumer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import type { Config } from '../../src/config/config.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { ADMIN, listenOnLoopback, startTestApp, type TestApp } from '../helpers/test-app.js';
import { openWs, refusedUpgrade, type WsClient } from '../helpers/ws-client.js';

/** The heartbeat period of the heartbeat tests: a third of a second (the setting's smallest is one second). */
const HEARTBEAT_MS = 300;
const WS_ENV = { WEBSOCKETS_ENABLED: 'true', WEBSOCKETS_HEARTBEAT_ENABLED: 'false' };

function withApp(
  client: Parameters<typeof startTestApp>[0],
  env: Record<string, string>,
  configure?: (config: Config) => void,
) {
  const state = { t: undefined as unknown as TestApp, url: '' };
  before(async () => {
    state.t = await startTestApp(client, {
      env: { ...WS_ENV, ...env },
      configure,
      oneWorker: "socket limits and buffers are counted per process (t.app.server's connections)",
    });
    state.url = await listenOnLoopback(state.t);
  });
  after(async () => {
    await state.t?.close();
  });
  return state;
}

async function authed(url: string, token = ADMIN.token): Promise<WsClient> {
  const ws = await openWs(url);
  ws.send({ type: 'auth', access_token: token });
  assert.equal((await ws.next()).status, 'ok');
  return ws;
}

for (const client of testClients()) {
  describe(`websocket message limits (${clientLabel(client)})`, () => {
    const app = withApp(client, {
      WEBSOCKETS_SUBSCRIPTION_LIMIT: '2',
      WEBSOCKETS_MAX_MESSAGE_SIZE: '1kb',
    });

    it('refuses a subscription past WEBSOCKETS_SUBSCRIPTION_LIMIT, until one is unsubscribed', async () => {
      const ws = await authed(app.url);
      for (const uid of ['a', 'b']) {
        ws.send({ type: 'subscribe', collection: 'authors', uid });
        assert.equal((await ws.next()).event, 'init');
      }
      ws.send({ type: 'subscribe', collection: 'authors', uid: 'c' });
      const refused = await ws.next();
      assert.equal(refused.status, 'error');
      assert.equal(refused.uid, 'c');
      assert.equal(refused.error.code, 'REQUESTS_EXCEEDED');
      ws.send({ type: 'subscribe', collection: 'authors', uid: 'b' });
      assert.equal((await ws.next()).event, 'init', 'replacing a subscription (same uid) is not a new one');
      ws.send({ type: 'unsubscribe', uid: 'a' });
      assert.deepEqual(await ws.next(), { type: 'subscription', event: 'unsubscribe', uid: 'a' });
      ws.send({ type: 'subscribe', collection: 'authors', uid: 'c' });
      assert.equal((await ws.next()).event, 'init');
      ws.close();
    });

    it('answers a frame over the size limit with CONTENT_TOO_LARGE, and closes past twice the limit', async () => {
      const ws = await authed(app.url);
      ws.send(JSON.stringify({ type: 'ping', pad: 'x'.repeat(1500) }));
      const tooLarge = await ws.next();
      assert.equal(tooLarge.status, 'error');
      assert.equal(tooLarge.error.code, 'CONTENT_TOO_LARGE');
      ws.send({ type: 'ping', uid: 'kept' });
      assert.deepEqual(await ws.next(), { type: 'pong', uid: 'kept' }, 'the connection is kept');
      ws.send(JSON.stringify({ type: 'ping', pad: 'x'.repeat(3000) }));
      assert.equal((await ws.closed).code, 1009);
    });

    it('answers binary, non-JSON and wrongly typed frames with INVALID_PAYLOAD and keeps serving', async () => {
      const ws = await authed(app.url);
      ws.socket.send(Buffer.from([0, 1, 2, 3]), { binary: true });
      for (const frame of ['not json', '[1,2]', '{"type":7}', 'null', '{"no":"type"}', '{"type":"nonsense"}'])
        ws.send(frame);
      const answers = [];
      for (let i = 0; i < 7; i++) answers.push(await ws.next());
      for (const answer of answers) {
        assert.equal(answer.status, 'error', JSON.stringify(answer));
        assert.equal(answer.error.code, 'INVALID_PAYLOAD');
      }
      ws.send({ type: 'subscribe', collection: 42, uid: 'typed' });
      const wrong = await ws.next();
      assert.equal(wrong.uid, 'typed');
      assert.equal(wrong.error.code, 'INVALID_PAYLOAD');
      ws.send({ type: 'subscribe', collection: 'authors', query: { filter: 'oops' }, uid: 'q' });
      assert.match((await ws.next()).error.code, /^INVALID_(QUERY|PAYLOAD)$/);
      ws.send({ type: 'ping', uid: 'alive' });
      assert.deepEqual(await ws.next(), { type: 'pong', uid: 'alive' });
      ws.close();
    });
  });

  describe(`websocket connections per user (${clientLabel(client)})`, () => {
    const app = withApp(client, { WEBSOCKETS_CONN_LIMIT_PER_USER: '2' });

    it('refuses an auth past WEBSOCKETS_CONN_LIMIT_PER_USER with REQUESTS_EXCEEDED and closes that socket', async () => {
      const first = await authed(app.url);
      const second = await authed(app.url);
      const third = await openWs(app.url);
      third.send({ type: 'auth', access_token: ADMIN.token });
      const refused = await third.next();
      assert.equal(refused.type, 'auth');
      assert.equal(refused.error.code, 'REQUESTS_EXCEEDED');
      assert.equal((await third.closed).code, 1008);
      first.send({ type: 'ping', uid: 'first' });
      assert.equal((await first.next()).uid, 'first', 'the sockets within the limit are unaffected');
      first.close();
      second.close();
    });
  });

  describe(`websocket connections per IP (${clientLabel(client)})`, () => {
    const app = withApp(client, { WEBSOCKETS_CONN_LIMIT_PER_IP: '2' });

    it('refuses the upgrade past WEBSOCKETS_CONN_LIMIT_PER_IP with 429', async () => {
      const open = [await openWs(app.url), await openWs(app.url)];
      const { status } = await refusedUpgrade(`${app.url.replace('http', 'ws')}/websocket`);
      assert.equal(status, 429);
      for (const ws of open) ws.close();
    });
  });

  describe(`websocket connections per instance (${clientLabel(client)})`, () => {
    const app = withApp(client, { WEBSOCKETS_REST_CONN_LIMIT: '1' });

    it('refuses the upgrade past WEBSOCKETS_REST_CONN_LIMIT with 503', async () => {
      const first = await openWs(app.url);
      const { status } = await refusedUpgrade(`${app.url.replace('http', 'ws')}/websocket`);
      assert.equal(status, 503);
      first.close();
    });
  });

  describe(`websocket message rate (${clientLabel(client)})`, () => {
    const app = withApp(client, {
      RATE_LIMITER_ENABLED: 'true',
      RATE_LIMITER_POINTS: '6',
      RATE_LIMITER_DURATION: '600',
    });

    it('answers messages over the per-IP rate limit with REQUESTS_EXCEEDED, keeping the connection', async () => {
      const ws = await openWs(app.url, { headers: { authorization: `Bearer ${ADMIN.token}` } });
      for (let i = 0; i < 10; i++) ws.send({ type: 'ping', uid: String(i) });
      const answers = [];
      for (let i = 0; i < 10; i++) answers.push(await ws.next());
      const pongs = answers.filter((a) => a.type === 'pong');
      const refused = answers.filter((a) => a.status === 'error');
      assert.ok(pongs.length >= 1, 'the first messages are within the limit');
      assert.equal(pongs.length + refused.length, 10);
      assert.ok(refused.length >= 4, `only ${refused.length} refused`);
      for (const answer of refused) {
        assert.equal(answer.type, 'ping');
        assert.equal(answer.error.code, 'REQUESTS_EXCEEDED');
      }
      assert.deepEqual(
        answers.map((a) => a.uid),
        answers.map((_, i) => String(i)),
        'every message answered, in order',
      );
      assert.equal(ws.socket.readyState, WebSocket.OPEN);
      ws.close();
    });
  });

  describe(`websocket heartbeat (${clientLabel(client)})`, () => {
    const app = withApp(client, { WEBSOCKETS_HEARTBEAT_ENABLED: 'true' }, (config) => {
      config.websockets.heartbeatMs = HEARTBEAT_MS;
    });

    it('closes a client that does not answer pings; one that answers stays', async () => {
      const silent = await authed(app.url);
      const answering = await authed(app.url);
      // Answered as the SDK does: at once, from the message listener (not when the test gets round to it).
      answering.socket.on('message', (data) => {
        if (JSON.parse(String(data)).type === 'ping') answering.send({ type: 'pong' });
      });
      assert.deepEqual(await silent.next(), { type: 'ping' });
      const closed = await silent.closed;
      assert.equal(closed.code, 1008);
      assert.match(closed.reason, /heartbeat/i);
      for (let beat = 0; beat < 3; beat++) assert.deepEqual(await answering.next(), { type: 'ping' });
      assert.equal(answering.socket.readyState, WebSocket.OPEN, 'answered three pings: still open');
      answering.close();
    });
  });

  describe(`websocket slow consumer (${clientLabel(client)})`, () => {
    const app = withApp(client, { WEBSOCKETS_MAX_BUFFER: '64kb' });

    it('closes a socket whose client stops reading once its unsent data passes WEBSOCKETS_MAX_BUFFER', async () => {
      const bio = 'b'.repeat(40_000);
      const rows = Array.from({ length: 16 }, (_, i) => ({ name: `Slow reader ${i}`, bio }));
      const created = await app.t.request({ method: 'POST', url: '/items/authors', payload: rows });
      assert.equal(created.statusCode, 200, created.body);
      const ws = await authed(app.url);
      // Open TCP connections of the listening server (the upgraded socket is one until it is destroyed).
      const connections = () =>
        new Promise<number>((resolve, reject) =>
          app.t.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
        );
      assert.equal(await connections(), 1);
      // The client stops reading: what the server sends piles up in the kernel's buffers, then in the server's.
      (ws.socket as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
      const read = { type: 'items', action: 'read', collection: 'authors', query: { fields: ['bio'], limit: -1 } };
      for (let i = 0; i < 60; i++) ws.send(read);
      // Bounded wait for the server to give up on it (about 40 MB asked for; the kernel holds a few of them).
      for (let poll = 0; poll < 600 && (await connections()) > 0; poll++) await new Promise((r) => setTimeout(r, 50));
      assert.equal(await connections(), 0, 'the slow consumer was dropped');
      (ws.socket as unknown as { _socket: { resume(): void } })._socket.resume();
      const { code } = await ws.closed;
      assert.ok([1013, 1006].includes(code), `closed with ${code}`);
    });
  });
}
