/**
 * The GraphQL socket's bounds, with the real graphql-ws client (raw `ws` where a client must misbehave): connections
 * per client address and in total (refused at the upgrade, counted apart from /websocket's), per user (closed with
 * 1008), operations per connection and the per-IP rate limiter (an `error` message with REQUESTS_EXCEEDED, the
 * connection kept), a frame over the size limit (closed with 1009), a slow consumer (dropped), the heartbeat (a peer
 * that does not answer pings is closed, one that does stays), and the token: an access token expired on the app's
 * clock, or logged out, closes the socket with 4403 and ends its subscriptions. Nothing is asserted about time.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createClient, type Client, type Sink } from 'graphql-ws';
import WebSocket from 'ws';
import type { Config } from '../../src/config/config.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { ADMIN, json, listenOnLoopback, startTestApp, type TestApp } from '../helpers/test-app.js';

type Closed = { code: number; reason: string };
type Row = Record<string, any>;
/** The heartbeat period of the heartbeat tests: a third of a second (the setting's smallest is one second). */
const HEARTBEAT_MS = 300;
const PROTOCOL = 'graphql-transport-ws';
const BASE_ENV = { WEBSOCKETS_ENABLED: 'true', WEBSOCKETS_HEARTBEAT_ENABLED: 'false', IP_CUSTOM_HEADER: 'x-test-ip' };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function withApp(
  client: Parameters<typeof startTestApp>[0],
  env: Record<string, string>,
  configure?: (config: Config) => void,
) {
  const state = { t: undefined as unknown as TestApp, http: '', url: '' };
  before(async () => {
    state.t = await startTestApp(client, {
      env: { ...BASE_ENV, ...env },
      configure,
      oneWorker: "socket limits and buffers are counted per process (t.app.server's connections)",
    });
    state.http = await listenOnLoopback(state.t);
    state.url = `${state.http.replace('http', 'ws')}/graphql`;
  });
  after(async () => {
    await state.t?.close();
  });
  return state;
}

/** Open TCP connections of the listening server. */
const connections = (t: TestApp) =>
  new Promise<number>((resolve, reject) =>
    t.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );

/** Waits (bounded) until the server has let go of every socket the test closed. */
async function drained(t: TestApp): Promise<void> {
  for (let poll = 0; poll < 200 && (await connections(t)) > 0; poll++) await pause(25);
  assert.equal(await connections(t), 0, 'the closed sockets are gone');
}

interface Opened {
  client: Client;
  connected: Promise<void>;
  closed: Promise<Closed>;
  isClosed: () => boolean;
}

/** A graphql-ws client connecting at once (no retry), from the client address `ip`. */
function open(url: string, options: { token?: string | null; ip?: string; onSocket?: (ws: WebSocket) => void } = {}) {
  const headers = options.ip ? { 'x-test-ip': options.ip } : {};
  const onSocket = options.onSocket;
  class Socket extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, { headers });
      onSocket?.(this);
    }
  }
  let onConnected!: () => void;
  let onClosed!: (closed: Closed) => void;
  let closedYet = false;
  const connected = new Promise<void>((resolve) => (onConnected = resolve));
  const closed = new Promise<Closed>((resolve) => (onClosed = resolve));
  const token = options.token === undefined ? ADMIN.token : options.token;
  const client = createClient({
    url,
    webSocketImpl: Socket,
    connectionParams: token ? { access_token: token } : {},
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: () => {},
    on: {
      connected: () => onConnected(),
      closed: (event) => {
        closedYet = true;
        const { code, reason } = event as { code: number; reason: string };
        onClosed({ code, reason: String(reason) });
      },
    },
  });
  return { client, connected, closed, isClosed: () => closedYet } satisfies Opened;
}

/** One operation's outcome: its first result, or the errors of an `error` message (or the close event). */
function once(client: Client, query: string): Promise<{ data?: Row; errors?: any[] }> {
  return new Promise((resolve) => {
    const sink: Sink = {
      next: (result) => resolve(result as { data?: Row }),
      error: (error) => resolve({ errors: Array.isArray(error) ? error : [error] }),
      complete: () => {},
    };
    client.subscribe({ query }, sink);
  });
}

/**
 * A live `authors_mutated` subscription: probe authors are created until one is announced (the server listens some
 * time after the `subscribe` message; graphql-ws does not answer it), then `keys()` lists the other keys announced.
 */
async function subscribed(client: Client, t: TestApp) {
  const keys: string[] = [];
  const probes = new Set<string>();
  let ended: unknown = null;
  const stop = client.subscribe(
    { query: 'subscription { authors_mutated { key event } }' },
    {
      next: (message) => void keys.push(String((message.data as Row).authors_mutated.key)),
      error: (error) => (ended = error),
      complete: () => (ended ??= 'complete'),
    },
  );
  for (let attempt = 0; attempt < 40 && keys.length === 0 && !ended; attempt++) {
    probes.add(await createAuthor(t, 'probe'));
    for (let wait = 0; wait < 10 && keys.length === 0 && !ended; wait++) await pause(25);
  }
  assert.ok(keys.length > 0, `a probe was announced (ended: ${JSON.stringify(ended)})`);
  return { keys: () => keys.filter((key) => !probes.has(key)), stop, ended: () => ended };
}

async function createAuthor(t: TestApp, name: string, token?: string): Promise<string> {
  const res = await t.request({
    method: 'POST',
    url: '/items/authors',
    payload: { name },
    ...(token ? { token } : {}),
  });
  assert.equal(res.statusCode, 200, res.body);
  return String(json(res).data.id);
}

/** The HTTP status of an upgrade the server refuses (rejects when it is accepted). */
function refusedUpgrade(url: string, ip: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, PROTOCOL, { headers: { 'x-test-ip': ip } });
    socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
    socket.on('open', () => {
      socket.close();
      reject(new Error(`a connection from ${ip} was accepted`));
    });
    socket.on('error', () => {});
  });
}

/** A raw graphql-transport-ws socket past `connection_ack` (for clients that must misbehave). */
async function rawSocket(url: string, options: WebSocket.ClientOptions = {}): Promise<WebSocket> {
  const socket = new WebSocket(url, PROTOCOL, options);
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  socket.send(JSON.stringify({ type: 'connection_init', payload: { access_token: ADMIN.token } }));
  const ack = await new Promise<Row>((resolve) => socket.once('message', (data) => resolve(JSON.parse(String(data)))));
  assert.equal(ack.type, 'connection_ack');
  return socket;
}

const closedOf = (socket: WebSocket) =>
  new Promise<Closed>((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: String(reason) })));

for (const client of testClients()) {
  describe(`GraphQL socket connection and message limits (${clientLabel(client)})`, () => {
    const app = withApp(client, {
      // public: a socket without a token is accepted (as the Public policy), counted for no user.
      WEBSOCKETS_GRAPHQL_AUTH: 'public',
      WEBSOCKETS_GRAPHQL_CONN_LIMIT: '5',
      WEBSOCKETS_CONN_LIMIT_PER_IP: '2',
      WEBSOCKETS_CONN_LIMIT_PER_USER: '3',
      WEBSOCKETS_SUBSCRIPTION_LIMIT: '2',
      WEBSOCKETS_MAX_MESSAGE_SIZE: '1kb',
    });

    it('refuses the upgrade past the per-address (429) and total (503) limits, counted apart from /websocket', async () => {
      // Three admin sockets (the per-user limit); the others are public, counted for no user.
      const sockets = ['a', 'a', 'b'].map((ip) => open(app.url, { ip }));
      sockets.push(open(app.url, { ip: 'b', token: null }));
      await Promise.all(sockets.map((s) => s.connected));
      assert.equal(await refusedUpgrade(app.url, 'a'), 429, 'a third socket from one address');
      sockets.push(open(app.url, { ip: 'c', token: null }));
      await sockets[4]!.connected;
      assert.equal(await refusedUpgrade(app.url, 'd'), 503, 'a sixth socket on the instance');
      // /websocket keeps its own count: the same address still gets one.
      const rest = new WebSocket(`${app.http.replace('http', 'ws')}/websocket`, { headers: { 'x-test-ip': 'a' } });
      await new Promise((resolve, reject) => {
        rest.once('open', resolve);
        rest.once('unexpected-response', () => reject(new Error('/websocket was refused')));
      });
      rest.close();
      for (const s of sockets) await s.client.dispose();
      await drained(app.t);
      const again = open(app.url, { ip: 'a' });
      await again.connected;
      await again.client.dispose();
      await drained(app.t);
    });

    it('closes a connection past the per-user limit with 1008; a closed one frees its place', async () => {
      const [first, second, third] = ['u1', 'u2', 'u3'].map((ip) => open(app.url, { ip }));
      await Promise.all([first.connected, second.connected, third.connected]);
      const fourth = open(app.url, { ip: 'u4' });
      const refused = await fourth.closed;
      assert.equal(refused.code, 1008);
      assert.match(refused.reason, /user/i);
      assert.equal(first.isClosed(), false, 'the sockets within the limit stay');
      await first.client.dispose();
      await first.closed;
      // The server lets go of the socket asynchronously: retried (bounded) until its place is free.
      let fifth: Opened | null = null;
      for (let attempt = 0; attempt < 40 && !fifth; attempt++) {
        const candidate = open(app.url, { ip: 'u5' });
        const outcome = await Promise.race([candidate.connected.then(() => 'ok'), candidate.closed.then(() => 'no')]);
        if (outcome === 'ok') fifth = candidate;
        else await pause(25);
      }
      assert.ok(fifth, 'a new socket of that user is accepted once one closed');
      for (const s of [second, third, fifth]) await s.client.dispose();
      await drained(app.t);
    });

    it('refuses an operation past WEBSOCKETS_SUBSCRIPTION_LIMIT with REQUESTS_EXCEEDED, until one completes', async () => {
      const { client: c, connected, isClosed } = open(app.url, { ip: 's' });
      await connected;
      const first = c.subscribe(
        { query: 'subscription { authors_mutated { key } }' },
        { next() {}, error() {}, complete() {} },
      );
      c.subscribe({ query: 'subscription { articles_mutated { key } }' }, { next() {}, error() {}, complete() {} });
      const third = await once(c, 'subscription { authors_mutated { key event } }');
      assert.equal(third.errors?.[0]?.extensions?.code, 'REQUESTS_EXCEEDED', JSON.stringify(third));
      assert.equal(isClosed(), false, 'the connection is kept');
      first();
      const live = await subscribed(c, app.t);
      const id = await createAuthor(app.t, 'After a completed subscription');
      for (let wait = 0; wait < 200 && !live.keys().includes(id); wait++) await pause(25);
      assert.deepEqual(live.keys(), [id]);
      await c.dispose();
      await drained(app.t);
    });

    it('closes the connection with 1009 on a frame over WEBSOCKETS_MAX_MESSAGE_SIZE', async () => {
      const small = open(app.url, { ip: 'm1' });
      const big = open(app.url, { ip: 'm2' });
      await Promise.all([small.connected, big.connected]);
      const answer = await once(small.client, `{ authors(limit: 1) { id } } # ${'x'.repeat(500)}`);
      assert.ok(answer.data?.authors, JSON.stringify(answer));
      void once(big.client, `{ authors(limit: 1) { id } } # ${'x'.repeat(1500)}`);
      assert.equal((await big.closed).code, 1009);
      assert.equal(small.isClosed(), false);
      await small.client.dispose();
      await drained(app.t);
    });
  });

  describe(`GraphQL socket operation rate (${clientLabel(client)})`, () => {
    const app = withApp(client, {
      RATE_LIMITER_ENABLED: 'true',
      RATE_LIMITER_POINTS: '6',
      RATE_LIMITER_DURATION: '600',
    });

    it('answers operations over the per-IP rate limit with REQUESTS_EXCEEDED, keeping the connection', async () => {
      const { client: c, connected, isClosed } = open(app.url);
      await connected;
      const answers = await Promise.all(Array.from({ length: 10 }, () => once(c, '{ authors(limit: 1) { id } }')));
      const served = answers.filter((a) => a.data?.authors);
      const refused = answers.filter((a) => a.errors);
      assert.ok(served.length >= 1, 'the first operations are within the limit');
      assert.equal(served.length + refused.length, 10);
      assert.ok(refused.length >= 4, `only ${refused.length} refused`);
      for (const answer of refused) assert.equal(answer.errors![0].extensions?.code, 'REQUESTS_EXCEEDED');
      assert.equal(isClosed(), false, 'the connection is kept');
      assert.equal((await once(c, '{ authors(limit: 1) { id } }')).errors?.[0]?.extensions?.code, 'REQUESTS_EXCEEDED');
      await c.dispose();
    });
  });

  describe(`GraphQL socket heartbeat (${clientLabel(client)})`, () => {
    const app = withApp(client, { WEBSOCKETS_HEARTBEAT_ENABLED: 'true' }, (config) => {
      config.websockets.heartbeatMs = HEARTBEAT_MS;
    });

    it('closes a peer that does not answer pings; one that answers stays', async () => {
      const silent = await rawSocket(app.url, { autoPong: false });
      let pings = 0;
      const answering = open(app.url, { onSocket: (ws) => ws.on('ping', () => pings++) });
      await answering.connected;
      const closed = await closedOf(silent);
      assert.equal(closed.code, 1008);
      assert.match(closed.reason, /heartbeat/i);
      while (pings < 3 && !answering.isClosed()) await pause(50);
      assert.equal(answering.isClosed(), false, 'answered three pings: still open');
      await answering.client.dispose();
    });
  });

  describe(`GraphQL socket token expiry and slow consumer (${clientLabel(client)})`, () => {
    const app = withApp(client, { WEBSOCKETS_MAX_BUFFER: '64kb' });
    const login = async () => {
      const res = await app.t.request({
        method: 'POST',
        url: '/auth/login',
        payload: { email: ADMIN.email, password: ADMIN.password, mode: 'json' },
        token: null,
      });
      assert.equal(res.statusCode, 200, res.body);
      return json(res).data as { access_token: string; refresh_token: string };
    };

    it('closes the socket with 4403 once its access token has expired on the clock; nothing more is delivered', async () => {
      const { access_token } = await login();
      const socket = open(app.url, { token: access_token });
      await socket.connected;
      const live = await subscribed(socket.client, app.t);
      const before = await createAuthor(app.t, 'Before expiry');
      for (let wait = 0; wait < 200 && !live.keys().includes(before); wait++) await pause(25);
      assert.deepEqual(live.keys(), [before]);
      app.t.clock.advance(app.t.context.config.accessTokenTtlMs + 5_000);
      await createAuthor(app.t, 'After expiry');
      const closed = await socket.closed;
      assert.equal(closed.code, 4403);
      assert.deepEqual(live.keys(), [before], 'the write after the expiry was not delivered');
      // The expired token opens no new socket either.
      assert.equal((await open(app.url, { token: access_token }).closed).code, 4403);
    });

    it('closes the socket with 4403 after a logout of its session', async () => {
      const { access_token, refresh_token } = await login();
      const socket = open(app.url, { token: access_token });
      await socket.connected;
      await subscribed(socket.client, app.t);
      const out = await app.t.request({ method: 'POST', url: '/auth/logout', payload: { refresh_token }, token: null });
      assert.ok([200, 204].includes(out.statusCode), out.body);
      // The token is re-resolved at most once a second (on the app's clock) while events flow: past that second, the
      // next event finds the session gone.
      app.t.clock.advance(2_000);
      await createAuthor(app.t, 'After logout');
      assert.equal((await socket.closed).code, 4403);
    });

    it('drops a socket whose client stops reading once its unsent data passes WEBSOCKETS_MAX_BUFFER', async () => {
      const bio = 'b'.repeat(40_000);
      const rows = Array.from({ length: 16 }, (_, i) => ({ name: `Slow reader ${i}`, bio }));
      const created = await app.t.request({ method: 'POST', url: '/items/authors', payload: rows });
      assert.equal(created.statusCode, 200, created.body);
      await drained(app.t);
      const socket = await rawSocket(app.url);
      const closed = closedOf(socket);
      assert.equal(await connections(app.t), 1);
      // The client stops reading: what the server sends piles up in the kernel buffers, then in the server.
      const tcp = (socket as unknown as { _socket: { pause(): void; resume(): void } })._socket;
      tcp.pause();
      for (let id = 0; id < 60; id++)
        socket.send(
          JSON.stringify({ id: String(id), type: 'subscribe', payload: { query: '{ authors(limit: 100) { bio } }' } }),
        );
      for (let poll = 0; poll < 600 && (await connections(app.t)) > 0; poll++) await pause(50);
      assert.equal(await connections(app.t), 0, 'the slow consumer was dropped');
      tcp.resume();
      assert.ok([1013, 1006].includes((await closed).code));
    });
  });
}
