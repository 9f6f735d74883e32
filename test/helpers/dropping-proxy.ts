/**
 * A loopback TCP proxy in front of a database server that kills connections the way a server or a network does:
 * `dropOnNextUse()` makes every open connection die when the client next writes to it (the statement never reaches
 * the server, but the client cannot know), `dropAll()` closes them now, `refuseNext(n)` hangs up on the next n new
 * connections before their handshake, and `refuseAll()` on every one until `acceptAll()`.
 */
import net from 'node:net';
import { readConfig } from '../../src/config/config.js';
import { createApp } from '../../src/http/app.js';
import { createAppContext } from '../../src/app/app-context.js';
import { ADMIN } from './test-app.js';
import type { TestDb } from './test-db.js';

export class DroppingProxy {
  private server: net.Server | null = null;
  private readonly armed = new Set<net.Socket>();
  private readonly clients = new Set<net.Socket>();
  private refusals = 0;
  /** Connections made through the proxy (refused ones included). */
  connections = 0;
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async start(): Promise<void> {
    this.server = net.createServer((client) => {
      this.connections++;
      if (this.refusals > 0) {
        this.refusals--;
        client.on('error', () => client.destroy());
        client.destroy();
        return;
      }
      const upstream = net.connect(this.target.port, this.target.host);
      this.clients.add(client);
      for (const socket of [client, upstream]) socket.on('error', () => socket.destroy());
      client.on('close', () => {
        this.clients.delete(client);
        upstream.destroy();
      });
      upstream.on('close', () => client.destroy());
      client.on('data', (chunk) => {
        if (this.armed.has(client)) {
          // The statement never reaches the server: the connection dies under it.
          this.armed.delete(client);
          client.destroy();
          upstream.destroy();
          return;
        }
        upstream.write(chunk);
      });
      upstream.pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server!.address() as net.AddressInfo).port;
  }

  dropOnNextUse(): void {
    for (const socket of this.clients) this.armed.add(socket);
  }

  /** Closes every open connection now; resolves once the clients have had a moment to see it. */
  async dropAll(): Promise<void> {
    for (const socket of this.clients) socket.destroy();
    await new Promise((resolve) => setImmediate(resolve));
  }

  refuseNext(count: number): void {
    this.refusals = count;
  }

  refuseAll(): void {
    this.refusals = Number.POSITIVE_INFINITY;
  }

  acceptAll(): void {
    this.refusals = 0;
  }

  async stop(): Promise<void> {
    for (const socket of this.clients) socket.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

/** An app (bootstrapped, limiters off) on `testDb` whose connections all go through `proxy`. */
export async function startThroughProxy(testDb: TestDb, proxy: DroppingProxy) {
  const url = new URL(testDb.env.DB_CONNECTION_STRING!);
  url.port = String(proxy.port);
  const context = await createAppContext(
    readConfig({
      ...testDb.env,
      DB_CONNECTION_STRING: url.toString(),
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      ADMIN_TOKEN: ADMIN.token,
      SECRET: 'strata-test-secret-0123456789abcdef',
      LOG_LEVEL: 'silent',
      RATE_LIMITER_ENABLED: 'false',
      PRESSURE_LIMITER_ENABLED: 'false',
    }),
    { bootstrap: true },
  );
  return { context, app: createApp(context, { logger: false, warm: false }) };
}

/** A proxy in front of `testDb`'s server, started. */
export async function proxyFor(testDb: TestDb): Promise<DroppingProxy> {
  const real = new URL(testDb.env.DB_CONNECTION_STRING!);
  const proxy = new DroppingProxy({
    host: real.hostname,
    port: Number(real.port || (testDb.client === 'pg' ? 5432 : 3306)),
  });
  await proxy.start();
  return proxy;
}
