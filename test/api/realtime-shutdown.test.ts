/**
 * Sockets that the server refuses or closes, with real clients over a server listening on 127.0.0.1: an upgrade
 * refused over HTTP has its connection ended by the server whichever refused it (the rate limiter's 429 and the
 * overload guard's 503 in `onRequest` hooks, the per-address 429 before the upgrade, strict mode's 401) — before, the
 * first two stayed open (CLOSE-WAIT once the client hung up); and shutdown ends within SHUTDOWN_TIMEOUT whatever the
 * clients do — a paused client, a client that never reads its backlog, a refused client that keeps its end open, a
 * half-sent upgrade — through `app.close()` and through SIGTERM of `strata start` (before: 30 s for a paused client,
 * never for a refused one). SQLite only: nothing here depends on the database. Every wait is bounded.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import net from 'node:net';
import { PassThrough, Readable } from 'node:stream';
import { after, describe, it } from 'node:test';
import WebSocket from 'ws';
import { runStartCommand } from '../../src/cli/start-command.js';
import { readConfig } from '../../src/config/config.js';
import { ADMIN, listenOnLoopback, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createTestDatabase } from '../helpers/test-db.js';
import { templateFor } from '../helpers/test-templates.js';
import { freePort } from '../helpers/strata-process.js';

const WS_ENV = {
  WEBSOCKETS_ENABLED: 'true',
  WEBSOCKETS_HEARTBEAT_ENABLED: 'false',
  IP_CUSTOM_HEADER: 'x-test-ip',
  SHUTDOWN_TIMEOUT: '2s',
};
/** Far more than SHUTDOWN_TIMEOUT (2 s) and the sockets' second of grace: a close that takes longer hangs. */
const CLOSE_BOUND_MS = 8_000;

/** `promise`, or a rejection naming `what` once `ms` have passed. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer!: NodeJS.Timeout;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

interface RawUpgrade {
  socket: net.Socket;
  /** The status line's code of the server's answer. */
  status: Promise<number>;
  /** Resolves when the server has ended the connection (the client never ends it itself). */
  ended: Promise<void>;
}

/** An upgrade request over a bare TCP connection that never closes by itself (as the attack's clients did). */
function rawUpgrade(port: number, path: string, headers: Record<string, string> = {}, complete = true): RawUpgrade {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => {});
  let text = '';
  const status = new Promise<number>((resolve) => {
    socket.on('data', (chunk) => {
      text += String(chunk);
      const match = /^HTTP\/1\.1 (\d+)/.exec(text);
      if (match) resolve(Number(match[1]));
    });
  });
  const ended = new Promise<void>((resolve) => {
    socket.once('end', () => resolve());
    socket.once('close', () => resolve());
  });
  const lines = [
    `GET ${path} HTTP/1.1`,
    'Host: 127.0.0.1',
    'Connection: Upgrade',
    'Upgrade: websocket',
    'Sec-WebSocket-Version: 13',
    `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  // Not complete: the request stops before its last header line, as a client that stalls half-way.
  socket.write(complete ? `${lines.join('\r\n')}\r\n\r\n` : lines.join('\r\n'));
  return { socket, status, ended };
}

const portOf = (url: string) => Number(new URL(url).port);

/** Clients that do everything a shutdown must not wait for; returns what to clean up afterwards. */
async function misbehavingClients(url: string, token: string): Promise<{ cleanup: () => void }> {
  const port = portOf(url);
  const opened: { terminate: () => void }[] = [];
  // A paused client: authenticated and subscribed, then it stops reading (a close frame it never answers).
  const paused = new WebSocket(`${url.replace('http', 'ws')}/websocket?access_token=${token}`);
  await new Promise((resolve, reject) => paused.once('open', resolve).once('error', reject));
  paused.send(JSON.stringify({ type: 'subscribe', collection: 'authors', uid: 's' }));
  await new Promise((resolve) => paused.once('message', resolve));
  (paused as unknown as { _socket: net.Socket })._socket.pause();
  paused.on('error', () => {});
  opened.push(paused);
  // A client that never reads: a bare connection past the handshake (101), never reading another byte.
  const silent = rawUpgrade(port, '/websocket', { 'x-test-ip': '10.9.0.1' });
  assert.equal(await within(silent.status, 5_000, 'the silent client is upgraded'), 101);
  silent.socket.pause();
  opened.push({ terminate: () => silent.socket.destroy() });
  // A half-sent upgrade request.
  const half = rawUpgrade(port, '/websocket', { 'x-test-ip': '10.9.0.2' }, false);
  opened.push({ terminate: () => half.socket.destroy() });
  // An upgrade refused by the rate limiter (its client keeps its end open).
  let refused: RawUpgrade | null = null;
  for (let i = 0; i < 10 && !refused; i++) {
    const attempt = rawUpgrade(port, '/websocket', { 'x-test-ip': '10.9.0.3' });
    opened.push({ terminate: () => attempt.socket.destroy() });
    if ((await within(attempt.status, 5_000, 'an answer to the upgrade')) === 429) refused = attempt;
  }
  assert.ok(refused, 'the rate limiter refused an upgrade');
  return { cleanup: () => opened.forEach((client) => client.terminate()) };
}

const LIMITED_ENV = { ...WS_ENV, RATE_LIMITER_ENABLED: 'true', RATE_LIMITER_POINTS: '3', RATE_LIMITER_DURATION: '60' };

describe('refused upgrades and shutdown with real sockets (sqlite)', () => {
  const apps: TestApp[] = [];
  after(async () => {
    for (const t of apps) await within(t.close(), CLOSE_BOUND_MS, 'closing').catch(() => {});
  });
  const start = async (env: Record<string, string>) => {
    const t = await startTestApp('sqlite3', { env });
    apps.push(t);
    return { t, url: await listenOnLoopback(t) };
  };

  it('ends the connection of every refused upgrade: rate limiter 429, per-address 429, strict 401', async () => {
    const { url } = await start({
      ...LIMITED_ENV,
      WEBSOCKETS_CONN_LIMIT_PER_IP: '1',
      WEBSOCKETS_GRAPHQL_AUTH: 'strict',
    });
    const port = portOf(url);
    // Per-address limit (before the upgrade, in preValidation): one socket from 10.1.0.1, the second refused.
    const first = rawUpgrade(port, '/websocket', { 'x-test-ip': '10.1.0.1' });
    assert.equal(await within(first.status, 5_000, 'first'), 101);
    const perAddress = rawUpgrade(port, '/websocket', { 'x-test-ip': '10.1.0.1' });
    assert.equal(await within(perAddress.status, 5_000, 'second'), 429);
    await within(perAddress.ended, 5_000, 'the per-address refusal ends its connection');
    // Strict GraphQL socket without a token: 401.
    const strict = rawUpgrade(port, '/graphql', {
      'x-test-ip': '10.1.0.2',
      'Sec-WebSocket-Protocol': 'graphql-transport-ws',
    });
    assert.equal(await within(strict.status, 5_000, 'strict'), 401);
    await within(strict.ended, 5_000, 'the 401 ends its connection');
    // The rate limiter (an onRequest hook, before the WebSocket plugin's): three points per address.
    const statuses: number[] = [];
    let limited: RawUpgrade | null = null;
    for (let i = 0; i < 5 && !limited; i++) {
      const attempt = rawUpgrade(port, '/websocket', { 'x-test-ip': '10.1.0.3' });
      statuses.push(await within(attempt.status, 5_000, 'an answer'));
      if (statuses.at(-1) === 429) limited = attempt;
      else attempt.socket.destroy();
    }
    assert.ok(limited, `the rate limiter refused one (${statuses.join(',')})`);
    await within(limited.ended, 5_000, 'the rate limiter refusal ends its connection');
    for (const s of [first, perAddress, strict, limited]) s.socket.destroy();
  });

  it('ends the connection of an upgrade refused under event-loop pressure (503)', async () => {
    const { url } = await start({
      ...WS_ENV,
      PRESSURE_LIMITER_ENABLED: 'true',
      PRESSURE_LIMITER_MAX_EVENT_LOOP_DELAY: '200',
      PRESSURE_LIMITER_SAMPLE_INTERVAL: '20',
    });
    const port = portOf(url);
    // Sustained pressure (as in limits.test.ts): every turn of the loop blocks 300 ms while upgrades are tried.
    let pressing = true;
    const press = () => {
      const until = Date.now() + 300;
      while (Date.now() < until) {
        // Blocking on purpose.
      }
      if (pressing) setImmediate(press);
    };
    setImmediate(press);
    let refused: RawUpgrade | null = null;
    const tried: number[] = [];
    try {
      for (let i = 0; i < 30 && !refused; i++) {
        const attempt = rawUpgrade(port, '/websocket', { 'x-test-ip': `10.2.0.${i}` });
        tried.push(await within(attempt.status, 20_000, 'an answer under pressure'));
        if (tried.at(-1) === 503) refused = attempt;
        else attempt.socket.destroy();
      }
    } finally {
      pressing = false;
    }
    assert.ok(refused, `an upgrade was refused under pressure (${tried.join(',')})`);
    await within(refused.ended, 5_000, 'the 503 ends its connection');
    refused.socket.destroy();
  });

  it('app.close() ends within SHUTDOWN_TIMEOUT whatever the clients do', async () => {
    const { t, url } = await start(LIMITED_ENV);
    const clients = await misbehavingClients(url, ADMIN.token);
    try {
      await within(t.app.close(), CLOSE_BOUND_MS, 'app.close()');
    } finally {
      clients.cleanup();
    }
  });

  it('SIGTERM stops `strata start` within SHUTDOWN_TIMEOUT whatever the clients do', async () => {
    const testDb = await createTestDatabase('sqlite3', { fixture: true, template: await templateFor('sqlite3', true) });
    const port = await freePort();
    const config = readConfig({
      ...testDb.env,
      ...LIMITED_ENV,
      HOST: '127.0.0.1',
      PORT: String(port),
      SECRET: 'strata-test-secret-0123456789abcdef',
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      ADMIN_TOKEN: ADMIN.token,
      LOG_LEVEL: 'silent',
      PRESSURE_LIMITER_ENABLED: 'false',
      // One process: with more, node:cluster would fork this test file as the workers (the binary alone forks).
      WORKERS: '1',
    });
    const signals = new EventEmitter();
    const out = new PassThrough().resume();
    const io = { env: {}, cwd: process.cwd(), stdin: Readable.from([]), stdout: out, stderr: out };
    const running = runStartCommand(config, io, signals);
    try {
      const url = `http://127.0.0.1:${port}`;
      let up = false;
      for (let i = 0; i < 200 && !up; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        up = await fetch(`${url}/server/ping`).then(
          (r) => r.ok,
          () => false,
        );
      }
      assert.ok(up, 'the server answers');
      const clients = await misbehavingClients(url, ADMIN.token);
      try {
        signals.emit('SIGTERM');
        assert.equal(await within(running, CLOSE_BOUND_MS, 'SIGTERM'), 0);
      } finally {
        clients.cleanup();
      }
    } finally {
      signals.emit('SIGTERM');
      await within(running, CLOSE_BOUND_MS, 'stopping').catch(() => {});
      await testDb.drop();
    }
  });
});
