/**
 * WORKERS=2: the per-instance WebSocket limits hold for both workers together (their counts are the primary's), on
 * SQLite (a file), PostgreSQL and MariaDB. Sockets of one client address opened across both workers stop at
 * WEBSOCKETS_CONN_LIMIT_PER_IP (the next upgrade refused with 429 by either worker); a closed one frees its place;
 * the places of a worker killed with SIGKILL are freed once it has exited. Subscriptions of one address on sockets of
 * both workers stop at WEBSOCKETS_SUBSCRIPTION_LIMIT_PER_IP. Before, each worker counted its own: twice the limit.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { PUBLIC_POLICY_ID } from '../../src/app/bootstrap.js';
import { StrataProcess } from '../helpers/strata-process.js';
import { clientLabel, createTestDatabase, testClients, type TestDb } from '../helpers/test-db.js';

const TOKEN = 'strata-socket-limits-admin-token';
const PER_IP = 3;
const SUBSCRIPTIONS_PER_IP = 2;

interface Opened {
  socket: WebSocket;
  worker: string;
  messages: Record<string, any>[];
  closed: Promise<void>;
}

type Attempt = { opened: Opened } | { status: number; worker: string; code: string | undefined };

/** One upgrade from `ip`: the open socket (and its worker), or the status and worker of the refusal. */
function attempt(url: string, ip: string): Promise<Attempt> {
  return new Promise((resolve, reject) => {
    // A connection handed to a worker as it was killed is never answered: the handshake gives up rather than hang.
    const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/websocket`, {
      headers: { 'x-forwarded-for': ip },
      handshakeTimeout: 15_000,
    });
    let worker = '';
    const messages: Record<string, any>[] = [];
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.on('message', (data) => messages.push(JSON.parse(String(data))));
    socket.once('upgrade', (response) => (worker = String(response.headers['x-strata-worker'] ?? '')));
    socket.once('open', () => resolve({ opened: { socket, worker, messages, closed } }));
    socket.on('unexpected-response', (_request, response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += String(chunk)));
      response.on('end', () => {
        socket.terminate();
        const code = text ? JSON.parse(text).errors?.[0]?.extensions?.code : undefined;
        resolve({ status: response.statusCode ?? 0, worker: String(response.headers['x-strata-worker'] ?? ''), code });
      });
    });
    socket.on('error', (error) => reject(error));
  });
}

async function open(url: string, ip: string): Promise<Opened> {
  const result = await attempt(url, ip);
  assert.ok('opened' in result, `refused: ${JSON.stringify(result)}`);
  return result.opened;
}

/** The next message of `opened` (waits for it; fails after 20 s rather than hang). */
async function next(opened: Opened): Promise<Record<string, any>> {
  for (const deadline = Date.now() + 20_000; Date.now() < deadline;) {
    const message = opened.messages.shift();
    if (message) return message;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('no message within 20 s');
}

/** Retries an upgrade until it opens: a close reaches the primary's count a moment after the client sees it. */
async function openOnceFreed(url: string, ip: string): Promise<Opened> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
    const result = await attempt(url, ip).catch(() => null);
    if (result && 'opened' in result) return result.opened;
    if (result) assert.equal(result.status, 429);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no place freed for ${ip}`);
}

/** Until two workers answer (after a start, or after one was killed and is being replaced). */
async function bothServing(strata: StrataProcess): Promise<void> {
  const seen = new Set<string>();
  for (const deadline = Date.now() + 180_000; seen.size < 2 && Date.now() < deadline;) {
    const response = await fetch(`${strata.url}/server/ping`, { headers: { connection: 'close' } }).catch(() => null);
    await response?.text();
    if (response?.status === 200) seen.add(response.headers.get('x-strata-worker') ?? '');
    if (seen.size < 2) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.equal(seen.size, 2, 'both workers answer');
}

for (const client of testClients()) {
  describe(`WORKERS=2: WebSocket limits per instance (${clientLabel(client)})`, () => {
    let db: TestDb;
    let strata: StrataProcess;
    const sockets: Opened[] = [];

    before(async () => {
      db = await createTestDatabase(client, { fixture: true });
      strata = await StrataProcess.start(
        {
          ...db.env,
          WORKERS: '2',
          SECRET: 'strata-socket-limits-secret-0123456789',
          ADMIN_TOKEN: TOKEN,
          ADMIN_PASSWORD: 'strata-socket-limits-password',
          IP_TRUST_PROXY: 'true',
          RATE_LIMITER_ENABLED: 'false',
          PRESSURE_LIMITER_ENABLED: 'false',
          WEBSOCKETS_ENABLED: 'true',
          WEBSOCKETS_HEARTBEAT_ENABLED: 'false',
          WEBSOCKETS_REST_AUTH: 'public',
          WEBSOCKETS_CONN_LIMIT_PER_IP: String(PER_IP),
          WEBSOCKETS_SUBSCRIPTION_LIMIT_PER_IP: String(SUBSCRIPTIONS_PER_IP),
          SHUTDOWN_TIMEOUT: '5s',
        },
        300_000,
      );
      await bothServing(strata);
      // Public reads of authors, for the subscriptions.
      const granted = await fetch(`${strata.url}/permissions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', connection: 'close' },
        body: JSON.stringify({
          policy: PUBLIC_POLICY_ID,
          collection: 'authors',
          action: 'read',
          fields: ['id', 'name'],
        }),
      });
      assert.equal(granted.status, 200, await granted.text());
    });

    after(async () => {
      for (const opened of sockets) opened.socket.terminate();
      await strata?.stop('SIGKILL');
      await db?.drop();
    });

    it('counts one address across both workers, frees a closed socket and a killed worker’s sockets', async () => {
      const ip = '10.7.0.1';
      const mine: Opened[] = [];
      for (let i = 0; i < PER_IP; i++) mine.push(await open(strata.url, ip));
      sockets.push(...mine);
      assert.equal(new Set(mine.map((s) => s.worker)).size, 2, `sockets on both workers: ${mine.map((s) => s.worker)}`);
      const refusals = [await attempt(strata.url, ip), await attempt(strata.url, ip)];
      for (const refusal of refusals)
        assert.deepEqual('status' in refusal && [refusal.status, refusal.code], [429, 'REQUESTS_EXCEEDED']);
      assert.equal(new Set(refusals.map((r) => ('worker' in r ? r.worker : ''))).size, 2, 'both workers refuse');

      const first = mine.shift()!;
      first.socket.close();
      await first.closed;
      mine.push(await openOnceFreed(strata.url, ip));
      sockets.push(mine.at(-1)!);
      assert.equal(((await attempt(strata.url, ip)) as { status?: number }).status, 429, 'full again');

      // A worker killed with its sockets: their places are freed once it has exited (its replacement serves).
      const victim = mine[0]!.worker;
      assert.ok(Number(victim) > 1 && Number(victim) !== strata.pid && Number(victim) !== process.pid);
      const onVictim = mine.filter((s) => s.worker === victim);
      process.kill(Number(victim), 'SIGKILL');
      await Promise.all(onVictim.map((s) => s.closed));
      const reopened: Opened[] = [];
      for (let i = 0; i < onVictim.length; i++) reopened.push(await openOnceFreed(strata.url, ip));
      sockets.push(...reopened);
      assert.ok(reopened.every((s) => s.worker !== victim));
      assert.equal(
        ((await attempt(strata.url, ip)) as { status?: number }).status,
        429,
        'exactly the killed worker’s places',
      );
    });

    it('counts one address’s subscriptions across both workers', async () => {
      const ip = '10.7.0.2';
      await bothServing(strata);
      const mine: Opened[] = [];
      // Sockets until there is one on each worker (connections go to the workers in turn).
      for (let i = 0; i < 2 || new Set(mine.map((s) => s.worker)).size < 2; i++) {
        assert.ok(i < PER_IP, 'sockets on both workers');
        mine.push(await open(strata.url, ip));
      }
      sockets.push(...mine);
      const [a, b] = [mine[0]!, mine.find((s) => s.worker !== mine[0]!.worker)!];
      const subscribe = async (socket: Opened, uid: string) => {
        socket.socket.send(
          JSON.stringify({ type: 'subscribe', collection: 'authors', uid, query: { fields: ['id'] } }),
        );
        const answer = await next(socket);
        return answer.event === 'init' ? 'ok' : String(answer.error?.code);
      };
      assert.equal(await subscribe(a, 's1'), 'ok');
      assert.equal(await subscribe(b, 's2'), 'ok');
      assert.equal(await subscribe(a, 's3'), 'REQUESTS_EXCEEDED');
      assert.equal(await subscribe(b, 's4'), 'REQUESTS_EXCEEDED');
      a.socket.send(JSON.stringify({ type: 'unsubscribe', uid: 's1' }));
      assert.equal((await next(a)).event, 'unsubscribe');
      assert.equal(await subscribe(b, 's5'), 'ok', 'an unsubscribe on one worker frees a place on the other');
    });
  });
}
