/**
 * The database goes away and comes back: requests that need it get 503 SERVICE_UNAVAILABLE, health says `error`,
 * and service resumes by itself. The outage is played by a TCP proxy of the test's own between Strata and the server.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, it } from 'node:test';
import type { DbClient } from '../../src/config/config.js';
import { readConfig } from '../../src/config/config.js';
import { createApp } from '../../src/http/app.js';
import { createAppContext } from '../../src/app/app-context.js';
import { ADMIN, errorCode, json } from '../helpers/test-app.js';
import { clientLabel, createTestDatabase, testClients } from '../helpers/test-db.js';

/** Forwards loopback connections to `target`; `cut()` drops every connection and refuses new ones until `restore()`. */
class OutageProxy {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async restore(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.target.port, this.target.host);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const servers = testClients().filter((client): client is Exclude<DbClient, 'sqlite3'> => client !== 'sqlite3');

for (const client of servers) {
  describe(`database outage (${clientLabel(client)})`, () => {
    it('answers 503 while the database is away and recovers by itself', async () => {
      const testDb = await createTestDatabase(client, { fixture: true });
      const real = new URL(testDb.env.DB_CONNECTION_STRING!);
      const proxy = new OutageProxy({
        host: real.hostname,
        port: Number(real.port || (client === 'pg' ? 5432 : 3306)),
      });
      await proxy.restore();
      const viaProxy = new URL(real);
      viaProxy.port = String(proxy.port);
      const context = await createAppContext(
        readConfig({
          ...testDb.env,
          DB_CONNECTION_STRING: viaProxy.toString(),
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
      const app = createApp(context, { logger: false, warm: false });
      const read = () =>
        app.inject({
          method: 'GET',
          url: '/items/authors?fields=name&limit=1',
          headers: { authorization: `Bearer ${ADMIN.token}` },
        });
      try {
        assert.equal((await read()).statusCode, 200);
        await proxy.cut();
        const during = await read();
        assert.equal(during.statusCode, 503, during.body);
        assert.equal(errorCode(during), 'SERVICE_UNAVAILABLE');
        assert.doesNotMatch(during.body, /ECONNREFUSED|ECONNRESET|at /);
        const health = await app.inject({ method: 'GET', url: '/server/health' });
        assert.equal(health.statusCode, 503);
        assert.equal(json(health).status, 'error');
        await proxy.restore();
        let status = 0;
        for (let i = 0; i < 100 && status !== 200; i++) {
          status = (await read()).statusCode;
          if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
        }
        assert.equal(status, 200);
        assert.equal(json(await app.inject({ method: 'GET', url: '/server/health' })).status, 'ok');
      } finally {
        await app.close();
        await context.close();
        await proxy.cut();
        await testDb.drop();
      }
    });
  });
}
