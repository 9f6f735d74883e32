/**
 * GET /metrics as Directus 11 serves it (METRICS_ENABLED, METRICS_TOKENS): refused (403) without a token, with a
 * wrong one and for a non-admin; with a token, Prometheus text whose series follow what was done: a request under
 * its route template (never its raw URL), the pool and statement figures after a read, cache hits, and the sockets
 * gauge moving as a WebSocket opens and closes. Off by default: no route at all.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPolicy, createUserWithPolicies, grantPublic } from '../helpers/access-fixture.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { errorCode, listenOnLoopback, startTestApp, type TestApp } from '../helpers/test-app.js';
import { openMessageSocket } from '../helpers/socket-messages.js';

const TOKEN = 'scrape-token-0123456789abcdef';
const ENV = {
  METRICS_ENABLED: 'true',
  METRICS_TOKENS: `another-token-0123456789abcdef, ${TOKEN}`,
  WEBSOCKETS_ENABLED: 'true',
  WEBSOCKETS_HEARTBEAT_ENABLED: 'false',
  WEBSOCKETS_REST_AUTH: 'public',
};

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
// Values as Prometheus reads them (Go's ParseFloat: NaN and Inf in any case).
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (-?(?:[0-9.e+-]+|nan|[+-]?inf))$`, 'i');
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/g;
const COMMENT = new RegExp(`^# (HELP ${NAME} .*|TYPE ${NAME} (counter|gauge|histogram|summary|untyped))$`);

/** The exposition text's samples; every line must be a sample, a HELP/TYPE comment or empty. */
function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      assert.match(line, COMMENT);
      continue;
    }
    const match = SAMPLE.exec(line);
    assert.ok(match, `not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    let rest = match[2] ?? '';
    for (const [, key, value] of rest.matchAll(LABEL)) labels[key!] = value!;
    rest = rest.replace(LABEL, '');
    assert.equal(rest, '', `malformed labels: ${line}`);
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

function find(samples: Sample[], name: string, labels: Record<string, string> = {}): Sample[] {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

for (const client of testClients()) {
  describe(`/metrics (${clientLabel(client)})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(client, { env: ENV, oneWorker: "each worker's /metrics shows its own figures" });
    });
    after(async () => {
      await t?.close();
    });

    const scrape = async (authorization = `Bearer ${TOKEN}`) => {
      const res = await t.request({ method: 'GET', url: '/metrics', token: null, headers: { authorization } });
      assert.equal(res.statusCode, 200, res.body);
      return parseExposition(res.body);
    };

    it('refuses without a token, with a wrong one and for a non-admin user (403 FORBIDDEN)', async () => {
      const readers = await createPolicy(t, { permissions: [{ collection: 'articles', fields: '*' }] });
      const user = await createUserWithPolicies(t, [readers]);
      const attempts: (string | undefined)[] = [
        undefined,
        'Bearer wrong-token-0123456789abcdef',
        `Bearer ${TOKEN}x`,
        `Metrics ${TOKEN.slice(0, -1)}`,
        `Basic ${TOKEN}`,
        TOKEN,
        `Bearer ${user.token}`,
      ];
      for (const authorization of attempts) {
        const headers = authorization === undefined ? {} : { authorization };
        const res = await t.request({ method: 'GET', url: '/metrics', token: null, headers });
        assert.equal(res.statusCode, 403, `${authorization}: ${res.body}`);
        assert.equal(errorCode(res), 'FORBIDDEN');
      }
    });

    it("answers a scrape token (Bearer or Directus's Metrics scheme) and an admin with the text format", async () => {
      for (const authorization of [`Bearer ${TOKEN}`, `Metrics ${TOKEN}`, 'Bearer another-token-0123456789abcdef']) {
        const res = await t.request({ method: 'GET', url: '/metrics', token: null, headers: { authorization } });
        assert.equal(res.statusCode, 200, res.body);
        assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
        assert.equal(res.headers['cache-control'], 'no-store');
        assert.ok(parseExposition(res.body).length > 0);
      }
      const admin = await t.request({ method: 'GET', url: '/metrics' });
      assert.equal(admin.statusCode, 200, admin.body);
      assert.ok(find(parseExposition(admin.body), 'process_cpu_user_seconds_total').length === 1);
    });

    it('counts a request under its route template, not its raw URL', async () => {
      const res = await t.request({ method: 'GET', url: '/items/articles/2?fields=id,title' });
      assert.equal(res.statusCode, 200, res.body);
      const missing = await t.request({ method: 'GET', url: '/items/articles/987654' });
      assert.equal(missing.statusCode, 403);
      await t.request({ method: 'GET', url: '/no/such/path/12345' });
      const samples = await scrape();
      const counts = find(samples, 'strata_http_request_duration_seconds_count', { route: '/items/:collection/:pk' });
      assert.deepEqual(counts.map((s) => [s.labels.method, s.labels.status, s.value]).sort(), [
        ['GET', '200', 1],
        ['GET', '403', 1],
      ]);
      assert.equal(find(samples, 'strata_http_request_duration_seconds_count', { route: '(unmatched)' }).length, 1);
      const routes = new Set(samples.map((s) => s.labels.route).filter((r) => r !== undefined));
      for (const route of routes) assert.doesNotMatch(route!, /articles|\d{3,}|\?/, `a raw URL as a label: ${route}`);
    });

    it('shows the pool, statements and cache hits after reads', async () => {
      const before = await scrape();
      const reads = (samples: typeof before) =>
        find(samples, 'strata_db_statement_duration_seconds_count', { kind: 'read' })[0]?.value ?? 0;
      for (let i = 0; i < 2; i++)
        assert.equal((await t.request({ method: 'GET', url: '/items/authors?limit=2' })).statusCode, 200);
      const samples = await scrape();
      assert.ok(reads(samples) >= reads(before) + 2, 'two reads more');
      for (const state of ['used', 'free'])
        assert.equal(find(samples, 'strata_db_pool_connections', { pool: 'primary', state }).length, 1, state);
      assert.ok(find(samples, 'strata_db_pool_max_connections', { pool: 'primary' })[0]!.value >= 1);
      assert.equal(find(samples, 'strata_db_pool_pending_acquires', { pool: 'primary' })[0]!.value, 0);
      if (client === 'sqlite3')
        assert.equal(find(samples, 'strata_db_pool_connections', { pool: 'read-threads', state: 'used' }).length, 1);
      assert.ok(find(samples, 'strata_db_pool_acquire_wait_seconds_count', { pool: 'primary' })[0]!.value > 0);
      const hits = find(samples, 'strata_cache_hits_total', { cache: 'statements' })[0]!.value;
      assert.ok(hits >= 1, 'the second read is a cached statement');
    });

    it("times a schema change's DDL under kind ddl", async () => {
      const ddl = async () =>
        find(await scrape(), 'strata_db_statement_duration_seconds_count', { kind: 'ddl' })[0]?.value ?? 0;
      const before = await ddl();
      const payload = { collection: 'metrics_probe', schema: {}, fields: [{ field: 'label', type: 'string' }] };
      const res = await t.request({ method: 'POST', url: '/collections', payload });
      assert.equal(res.statusCode, 200, res.body);
      assert.ok((await ddl()) > before);
    });

    it('moves the sockets gauge as a WebSocket opens and closes', async () => {
      await grantPublic(t, [{ collection: 'authors', fields: 'id' }]);
      const http = await listenOnLoopback(t);
      const sockets = async () => find(await scrape(), 'strata_realtime_sockets')[0]!.value;
      assert.equal(await sockets(), 0);
      const ws = await openMessageSocket(`${http.replace('http', 'ws')}/websocket`);
      assert.equal(await sockets(), 1);
      ws.socket.send(JSON.stringify({ type: 'subscribe', collection: 'authors', uid: 'a', query: { fields: ['id'] } }));
      assert.equal((await ws.next()).event, 'init');
      assert.equal(find(await scrape(), 'strata_realtime_subscriptions')[0]!.value, 0 + 1);
      ws.close();
      await ws.closed;
      for (let i = 0; i < 50 && (await sockets()) !== 0; i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal(await sockets(), 0);
    });
  });
}

describe('/metrics is off by default (sqlite)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp('sqlite3');
  });
  after(async () => {
    await t?.close();
  });

  it('has no route and records nothing', async () => {
    const res = await t.request({ method: 'GET', url: '/metrics', token: null });
    assert.equal(res.statusCode, 404);
    assert.equal(t.context.prometheus, null);
    assert.equal(t.app.hasRoute({ method: 'GET', url: '/metrics' }), false);
  });
});

describe('METRICS_SERVICES picks the groups shown (sqlite)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp('sqlite3', {
      env: { METRICS_ENABLED: 'true', METRICS_TOKENS: TOKEN, METRICS_SERVICES: 'database,cache' },
    });
  });
  after(async () => {
    await t?.close();
  });

  it('shows the database and caches only', async () => {
    assert.equal((await t.request({ method: 'GET', url: '/items/authors' })).statusCode, 200);
    const res = await t.request({
      method: 'GET',
      url: '/metrics',
      token: null,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const names = new Set(parseExposition(res.body).map((s) => s.name.replace(/_(bucket|sum|count)$/, '')));
    assert.ok(names.has('strata_db_statement_duration_seconds') && names.has('strata_cache_hits_total'));
    for (const absent of [
      'strata_http_request_duration_seconds',
      'strata_realtime_sockets',
      'process_cpu_user_seconds_total',
    ])
      assert.ok(!names.has(absent), absent);
  });
});
