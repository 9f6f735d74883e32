/**
 * WORKERS=2: one `strata start` serving one port from two worker processes, without Redis, on SQLite (a file),
 * PostgreSQL and MariaDB. Each request goes on a new connection (node:cluster hands connections to workers in turn)
 * and each answer names its worker (X-Strata-Worker), so the tests see which worker answered what: both serve; a
 * schema change or a write acknowledged by one is seen by the next request on the other (the response cache on, in
 * each worker's memory); a rate limit is exact across them; a socket on one hears a write made through the other; a
 * worker killed is replaced; SIGTERM lets a request in flight finish.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { StrataProcess } from '../helpers/strata-process.js';
import { clientLabel, createTestDatabase, testClients, type TestDb } from '../helpers/test-db.js';
import { openSocket, subscribe, type TestSocket } from '../helpers/ws-client.js';

const TOKEN = 'strata-workers-admin-token';
const METRICS_TOKEN = 'strata-workers-metrics-token';
const LIMIT = 20;

interface Answer {
  status: number;
  worker: string;
  body: any;
}

let nextAddress = 1;
const freshIp = () => `10.9.${(nextAddress >> 8) & 255}.${nextAddress++ & 255}`;

/** One request on its own connection (so successive requests go to the workers in turn). */
async function call(
  strata: StrataProcess,
  method: string,
  url: string,
  body?: unknown,
  ip = freshIp(),
  timeoutMs = 60_000,
) {
  const response = await fetch(`${strata.url}${url}`, {
    method,
    // A connection handed to a worker as it was killed is never answered: give up on it rather than hang the run.
    signal: AbortSignal.timeout(timeoutMs),
    headers: {
      authorization: `Bearer ${TOKEN}`,
      connection: 'close',
      'x-forwarded-for': ip,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const worker = response.headers.get('x-strata-worker') ?? '';
  const json = response.headers.get('content-type')?.includes('json');
  return { status: response.status, worker, body: json && text ? JSON.parse(text) : text } as Answer;
}

async function ok(strata: StrataProcess, method: string, url: string, body?: unknown): Promise<Answer> {
  const answer = await call(strata, method, url, body);
  assert.ok(answer.status < 300, `${method} ${url}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer;
}

for (const client of testClients()) {
  describe(`WORKERS=2 behind one port (${clientLabel(client)})`, () => {
    let db: TestDb;
    let strata: StrataProcess;
    const sockets: TestSocket[] = [];

    before(async () => {
      db = await createTestDatabase(client, { fixture: true });
      strata = await StrataProcess.start(
        {
          ...db.env,
          WORKERS: '2',
          SECRET: 'strata-workers-secret-0123456789abcdef',
          ADMIN_TOKEN: TOKEN,
          ADMIN_PASSWORD: 'strata-workers-password',
          IP_TRUST_PROXY: 'true',
          RATE_LIMITER_ENABLED: 'true',
          RATE_LIMITER_POINTS: String(LIMIT),
          RATE_LIMITER_DURATION: '600',
          PRESSURE_LIMITER_ENABLED: 'false',
          CACHE_ENABLED: 'true',
          CACHE_STORE: 'memory',
          CACHE_STATUS_HEADER: 'X-Cache',
          WEBSOCKETS_ENABLED: 'true',
          WEBSOCKETS_HEARTBEAT_ENABLED: 'false',
          METRICS_ENABLED: 'true',
          METRICS_TOKENS: METRICS_TOKEN,
          SHUTDOWN_TIMEOUT: '120s',
          // Two workers start at once on a machine other sessions load too: a start may take minutes.
        },
        300_000,
      );
      // `start` returns once one worker answers; the other may still be starting.
      const seen = new Set<string>();
      for (const deadline = Date.now() + 180_000; seen.size < 2 && Date.now() < deadline;) {
        seen.add((await call(strata, 'GET', '/server/ping')).worker);
        if (seen.size < 2) await new Promise((resolve) => setTimeout(resolve, 100));
      }
    });

    after(async () => {
      for (const socket of sockets) socket.close();
      await strata?.stop('SIGKILL');
      await db?.drop();
    });

    it('serves from both workers', async () => {
      const workers = new Set<string>();
      for (let i = 0; i < 8; i++) workers.add((await ok(strata, 'GET', '/server/ping')).worker);
      assert.equal(workers.size, 2, `answered by ${[...workers].join(', ')}`);
      assert.ok(![...workers].includes(String(strata.pid)), 'the primary serves nothing itself');
    });

    it('serves a field created through one worker from the next request on the other', async () => {
      let crossed = 0;
      for (let i = 0; i < 4; i++) {
        // Both workers have read articles (and cached the answer) before the change.
        for (let j = 0; j < 2; j++) await ok(strata, 'GET', '/items/articles?limit=1');
        const made = await ok(strata, 'POST', '/fields/articles', { field: `worker_flag_${i}`, type: 'string' });
        const read = await call(strata, 'GET', `/items/articles?limit=1&fields=id,worker_flag_${i}`);
        assert.equal(read.status, 200, JSON.stringify(read.body));
        assert.ok(`worker_flag_${i}` in read.body.data[0]);
        if (read.worker !== made.worker) crossed++;
      }
      assert.ok(crossed > 0, 'no read was answered by the other worker');
    });

    it('never follows a write acknowledged by one worker with a stale cached read from the other', async () => {
      const id = (await ok(strata, 'GET', '/items/articles?limit=1&sort=id&fields=id')).body.data[0].id;
      let crossedAfterHit = 0;
      for (let round = 0; round < 20; round++) {
        // Warm both workers' caches with the current title.
        for (let j = 0; j < 2; j++) await ok(strata, 'GET', `/items/articles/${id}?fields=title`);
        const written = await ok(strata, 'PATCH', `/items/articles/${id}`, { title: `Round ${round}` });
        const read = await call(strata, 'GET', `/items/articles/${id}?fields=title`);
        assert.equal(read.body.data.title, `Round ${round}`, `round ${round}: stale answer from ${read.worker}`);
        if (read.worker !== written.worker) crossedAfterHit++;
      }
      assert.ok(crossedAfterHit > 0, 'no read was answered by the other worker');
      // The cache is in use at all: a read repeated without writes is a hit on each worker.
      const hits = new Set<string>();
      for (let i = 0; i < 6; i++) {
        const response = await fetch(`${strata.url}/items/articles/${id}?fields=title`, {
          headers: { authorization: `Bearer ${TOKEN}`, connection: 'close', 'x-forwarded-for': freshIp() },
        });
        await response.text();
        if (response.headers.get('x-cache') === 'HIT') hits.add(response.headers.get('x-strata-worker')!);
      }
      assert.equal(hits.size, 2, 'both workers answered from their cache');
    });

    it('counts one client exactly across the workers', async () => {
      const ip = freshIp();
      const answers: Answer[] = [];
      for (let i = 0; i < LIMIT * 3; i++) answers.push(await call(strata, 'GET', '/server/ping', undefined, ip));
      const allowed = answers.filter((a) => a.status === 200);
      assert.equal(allowed.length, LIMIT);
      assert.equal(answers.filter((a) => a.status === 429).length, LIMIT * 2);
      assert.equal(new Set(allowed.map((a) => a.worker)).size, 2, 'both workers let some through');
    });

    it('counts the failed logins of one user across the workers toward auth_login_attempts', async () => {
      await ok(strata, 'PATCH', '/settings', { auth_login_attempts: 2 });
      const email = 'attempts@example.com';
      await ok(strata, 'POST', '/users', { email, password: 'the-right-password', status: 'active' });
      const workers = new Set<string>();
      for (let i = 0; i < 3; i++) {
        const answer = await call(strata, 'POST', '/auth/login', { email, password: 'wrong' });
        assert.equal(answer.status, 401, JSON.stringify(answer.body));
        workers.add(answer.worker);
      }
      assert.equal(workers.size, 2, 'both workers refused some');
      const user = await ok(strata, 'GET', `/users?filter[email][_eq]=${email}&fields=status`);
      assert.equal(user.body.data[0].status, 'suspended', 'the third failure, wherever it landed, suspends');
    });

    it('tells a subscriber on one worker of a write made through the other', async () => {
      for (let i = 0; i < 8 && new Set(sockets.map((s) => s.worker)).size < 2; i++) {
        const socket = await openSocket(strata.url, TOKEN);
        sockets.push(socket);
        await subscribe(socket, 'authors', `s${i}`, { fields: ['id', 'name'] });
      }
      assert.equal(new Set(sockets.map((s) => s.worker)).size, 2, 'sockets on both workers');
      const created = await ok(strata, 'POST', '/items/authors?fields=id', { name: 'Relayed' });
      for (const socket of sockets) {
        const message = await socket.next();
        assert.equal(message.event, 'create', `socket on ${socket.worker} (write on ${created.worker})`);
        assert.deepEqual(message.data, [{ id: created.body.data.id, name: 'Relayed' }]);
      }
    });

    it('replaces a killed worker and keeps answering, counting the restart', async () => {
      const before = new Set<string>();
      for (let i = 0; i < 6; i++) before.add((await ok(strata, 'GET', '/server/ping')).worker);
      const victim = Number([...before][0]);
      // A missing header would read as pid 0, which is this whole process group: never signal anything but a worker.
      assert.ok(Number.isInteger(victim) && victim > 1 && victim !== process.pid, `a worker's pid: ${[...before]}`);
      process.kill(victim, 'SIGKILL');
      // Until the replacement answers (a request the dying worker had taken may fail meanwhile).
      let replacement: string | null = null;
      const deadline = Date.now() + 180_000;
      while (!replacement && Date.now() < deadline) {
        const answer = await call(strata, 'GET', '/server/ping', undefined, freshIp(), 5_000).catch(() => null);
        if (answer?.status === 200 && !before.has(answer.worker)) replacement = answer.worker;
        else await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.ok(replacement, `no new worker answered:\n${strata.output}`);
      for (let i = 0; i < 6; i++) assert.equal((await call(strata, 'GET', '/server/ping')).status, 200);
      const scrape = await fetch(`${strata.url}/metrics`, {
        headers: { authorization: `Bearer ${METRICS_TOKEN}`, connection: 'close' },
      });
      const text = await scrape.text();
      // One scrape answers for both workers (summed by the primary); the restart count is the primary's one count.
      assert.match(text, /\nstrata_worker_restarts_total 1\n/);
      const requests =
        /strata_http_request_duration_seconds_count\{[^}]*route="\/server\/ping"[^}]*status="200"[^}]*\} (\d+)/;
      assert.ok(Number(requests.exec(text)?.[1]) > 0, text.slice(0, 2000));
    });

    it('lets a request in flight finish on SIGTERM, then exits 0', async () => {
      // A create whose body is still arriving when the signal comes: it is in flight on a worker.
      const body = JSON.stringify({ title: 'Sent during the stop', status: 'draft' });
      const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
        const request = http.request(`${strata.url}/items/articles?fields=title`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${TOKEN}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'x-forwarded-for': freshIp(),
          },
        });
        request.on('response', (response) => {
          let text = '';
          response.on('data', (chunk) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode!, text }));
        });
        request.on('error', reject);
        request.write(body.slice(0, 10));
        request.on('socket', (socket) =>
          socket.once('connect', () =>
            // The connection has reached a worker well before this; the rest of the body follows the signal.
            setTimeout(() => {
              exited = strata.stop('SIGTERM');
              setTimeout(() => request.end(body.slice(10)), 300);
            }, 500),
          ),
        );
      });
      let exited: Promise<number | null> | undefined;
      const { status, text } = await answer;
      assert.equal(status, 200, text);
      assert.equal(JSON.parse(text).data.title, 'Sent during the stop');
      assert.equal(await exited, 0, strata.output);
      assert.match(strata.output, /Stopped on SIGTERM after \d+ ms \(2 workers\)/);
    });
  });
}
