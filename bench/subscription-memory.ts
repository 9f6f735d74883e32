/**
 * Heap per realtime subscription, and the cost of one write's fan-out over them:
 * `node --expose-gc --import tsx bench/subscription-memory.ts [sockets] [per-socket] [same|distinct]`.
 * Strata on a throwaway SQLite database (the test fixture), listening on loopback in this process; one restricted
 * user (a policy reading `id,name` of `authors`) opens `sockets` /websocket connections and subscribes `per-socket`
 * times on each — with one query for all (`same`: one group of alike subscribers) or a query of its own each
 * (`distinct`, an attacker's choice: one group per subscription), or 50 queries in turn (`capped`: the most one user
 * may hold with the default WEBSOCKETS_* bounds, which that mode keeps; run it with 5 sockets of 100). The heap is measured after a full collection with
 * the sockets open and idle, then with every subscription live; the difference over their count is the figure. Then
 * one author is created through REST and the CPU time the process spends until every subscription has its event is
 * the write's fan-out cost. The other modes lift the bounds (WEBSOCKETS_*=Infinity).
 */
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { readConfig } from '../src/config/config.js';
import { createApp } from '../src/http/app.js';
import { createAppContext } from '../src/app/app-context.js';
import { createTestDatabase, knexFor } from '../test/helpers/test-db.js';

const sockets = Number(process.argv[2] ?? 50);
const perSocket = Number(process.argv[3] ?? 100);
/** same: one query; distinct: one each; capped: as many as one user may hold by default (50), in turn. */
const mode = (['same', 'capped'] as const).find((name) => name === process.argv[4]) ?? 'distinct';
const queryOf = (n: number) => {
  if (mode === 'same') return { fields: ['id', 'name'] };
  const id = -((mode === 'capped' ? n % 50 : n) + 1);
  return { fields: ['id', 'name'], filter: { id: { _neq: id } } };
};
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

function heapMb(): number {
  for (let i = 0; i < 4; i++) gc!();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

const db = await createTestDatabase('sqlite3', { fixture: true });
const token = `memory-${randomUUID()}`;
const config = readConfig({
  ...db.env,
  SECRET: 'strata-bench-secret-0123456789abcdef',
  ADMIN_EMAIL: 'admin@example.com',
  ADMIN_PASSWORD: 'strata-bench-password',
  ADMIN_TOKEN: 'strata-bench-admin',
  LOG_LEVEL: 'silent',
  RATE_LIMITER_ENABLED: 'false',
  PRESSURE_LIMITER_ENABLED: 'false',
  WEBSOCKETS_ENABLED: 'true',
  WEBSOCKETS_HEARTBEAT_ENABLED: 'false',
  // `capped` keeps the default bounds (its load is within them); the others lift them.
  ...(mode === 'capped'
    ? {}
    : {
        WEBSOCKETS_SUBSCRIPTION_LIMIT: 'Infinity',
        WEBSOCKETS_SUBSCRIPTION_LIMIT_PER_USER: 'Infinity',
        WEBSOCKETS_SUBSCRIPTION_LIMIT_PER_IP: 'Infinity',
        WEBSOCKETS_CONN_LIMIT_PER_USER: 'Infinity',
        WEBSOCKETS_CONN_LIMIT_PER_IP: 'Infinity',
        WEBSOCKETS_QUERY_LIMIT_PER_USER: 'Infinity',
        WEBSOCKETS_QUERY_LIMIT_PER_IP: 'Infinity',
      }),
});
const context = await createAppContext(config, { bootstrap: true });
const app = createApp(context, { logger: false, warm: false });
await app.listen({ host: '127.0.0.1', port: 0 });
const url = `ws://127.0.0.1:${(app.server.address() as { port: number }).port}/websocket`;

const k = knexFor(db);
const policy = randomUUID();
const role = randomUUID();
await k('service_policies').insert({ id: policy, name: 'Readers', app_access: false, admin_access: false });
await k('service_permissions').insert({ policy, collection: 'authors', action: 'read', fields: 'id,name' });
await k('service_roles').insert({ id: role, name: 'Readers' });
await k('service_access').insert({ id: randomUUID(), role, user: null, policy });
await k('service_users').insert({
  id: randomUUID(),
  email: 'reader@example.com',
  status: 'active',
  role,
  token,
  provider: 'default',
});
await k.destroy();

/** A socket that counts messages by type, keeping none. */
interface Counted {
  socket: WebSocket;
  counts: Map<string, number>;
  waiters: (() => void)[];
}

async function open(): Promise<Counted> {
  const socket = new WebSocket(url);
  const counted: Counted = { socket, counts: new Map(), waiters: [] };
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as { type: string; event?: string; status?: string };
    const kind = message.status === 'error' ? 'error' : (message.event ?? message.type);
    counted.counts.set(kind, (counted.counts.get(kind) ?? 0) + 1);
    for (const wake of counted.waiters.splice(0)) wake();
  });
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  socket.send(JSON.stringify({ type: 'auth', access_token: token }));
  await until(counted, 'auth', 1);
  return counted;
}

async function until(counted: Counted, kind: string, count: number): Promise<void> {
  while ((counted.counts.get(kind) ?? 0) < count) {
    if ((counted.counts.get('error') ?? 0) > 0) throw new Error(`a socket was refused (${kind})`);
    await new Promise<void>((resolve) => counted.waiters.push(resolve));
  }
}

const clients: Counted[] = [];
for (let i = 0; i < sockets; i++) clients.push(await open());
const idle = heapMb();
let n = 0;
for (const client of clients) {
  for (let j = 0; j < perSocket; j++, n++) {
    const query = queryOf(n);
    client.socket.send(JSON.stringify({ type: 'subscribe', collection: 'authors', uid: String(j), query }));
  }
  await until(client, 'init', perSocket);
}
const subscribed = heapMb();
const stats = context.subscriptions.stats();

const cpuBefore = process.cpuUsage();
const rssBefore = process.memoryUsage().rss;
const created = await app.inject({
  method: 'POST',
  url: '/items/authors',
  headers: { authorization: 'Bearer strata-bench-admin' },
  payload: { name: 'Fan-out' },
});
if (created.statusCode !== 200) throw new Error(created.body);
for (const client of clients) await until(client, 'create', perSocket);
const cpu = process.cpuUsage(cpuBefore);

console.log(
  JSON.stringify({
    mode,
    subscriptions: n,
    hub: stats,
    heapIdleMb: Number(idle.toFixed(1)),
    heapSubscribedMb: Number(subscribed.toFixed(1)),
    kbPerSubscription: Number((((subscribed - idle) * 1024) / n).toFixed(2)),
    writeFanOutCpuMs: Math.round((cpu.user + cpu.system) / 1000),
    rssMb: Math.round(Math.max(rssBefore, process.memoryUsage().rss) / 1024 / 1024),
  }),
);
for (const client of clients) client.socket.terminate();
await app.close();
await context.close();
await db.drop();
