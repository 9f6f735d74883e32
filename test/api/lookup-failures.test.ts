/**
 * The lookups behind every request (who the caller is, their policies and permissions, the settings, sessions) go
 * through src/db's repositories: a connection that dies under a lookup is replaced and the lookup runs again, a
 * connection that cannot be made is tried once more, a write that may have reached the database is never repeated,
 * and a database that cannot be reached is 503 SERVICE_UNAVAILABLE (never a 500, never driver text).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Sessions } from '../../src/auth/sessions.js';
import type { DbClient } from '../../src/config/config.js';
import { Database } from '../../src/db/connection.js';
import { ServiceUnavailableError } from '../../src/errors/catalogue.js';
import { PUBLIC_POLICY_ID } from '../../src/app/bootstrap.js';
import { proxyFor, startThroughProxy } from '../helpers/dropping-proxy.js';
import { ADMIN, errorCode, json, startTestApp } from '../helpers/test-app.js';
import { clientLabel, createTestDatabase, testClients } from '../helpers/test-db.js';
import { templateFor } from '../helpers/test-templates.js';

const servers = testClients().filter((client): client is Exclude<DbClient, 'sqlite3'> => client !== 'sqlite3');
const admin = { authorization: `Bearer ${ADMIN.token}` };
/** A database with the fixture, bootstrapped: a copy of the run's template when there is one (no migrations to run). */
const bootstrapped = async (client: DbClient) =>
  createTestDatabase(client, { fixture: true, template: await templateFor(client, true) });

for (const client of servers) {
  describe(`lookups on failing connections (${clientLabel(client)})`, () => {
    it('runs auth, permission and settings lookups again on a fresh connection when theirs dies under them', async () => {
      const testDb = await bootstrapped(client);
      const proxy = await proxyFor(testDb);
      const { context, app } = await startThroughProxy(testDb, proxy);
      // Every lookup below starts with its caches empty, on pooled connections that die at their next use.
      const cold = () => {
        context.accountability.clear();
        context.permissions.clear();
        context.settings.clear();
        proxy.dropOnNextUse();
      };
      try {
        const granted = await app.inject({
          method: 'POST',
          url: '/permissions',
          headers: admin,
          payload: { policy: PUBLIC_POLICY_ID, collection: 'authors', action: 'read', fields: ['*'] },
        });
        assert.equal(granted.statusCode, 200, granted.body);

        cold();
        const login = await app.inject({
          method: 'POST',
          url: '/auth/login',
          payload: { email: ADMIN.email, password: ADMIN.password },
        });
        assert.equal(login.statusCode, 200, login.body);
        const { access_token: accessToken, refresh_token: refreshToken } = json(login).data;

        cold();
        const me = await app.inject({ method: 'GET', url: '/users/me?fields=email', headers: admin });
        assert.equal(me.statusCode, 200, me.body);
        assert.equal(json(me).data.email, ADMIN.email);

        cold();
        const byJwt = await app.inject({
          method: 'GET',
          url: '/users/me?fields=email',
          headers: { authorization: `Bearer ${accessToken}` },
        });
        assert.equal(byJwt.statusCode, 200, byJwt.body);

        cold();
        const publicRead = await app.inject({ method: 'GET', url: '/items/authors?fields=name&sort=id&limit=1' });
        assert.equal(publicRead.statusCode, 200, publicRead.body);
        assert.deepEqual(json(publicRead).data, [{ name: 'Ada Lovelace' }]);

        cold();
        const info = await app.inject({ method: 'GET', url: '/server/info', headers: admin });
        assert.equal(info.statusCode, 200, info.body);
        assert.equal(json(info).data.project.project_name, 'Strata');

        cold();
        const refreshed = await app.inject({
          method: 'POST',
          url: '/auth/refresh',
          payload: { refresh_token: refreshToken },
        });
        assert.equal(refreshed.statusCode, 200, refreshed.body);
      } finally {
        await app.close();
        await context.close();
        await proxy.stop();
        await testDb.drop();
      }
    });

    it('tries a connection that could not be made once more, and never repeats a write that may have run', async () => {
      const testDb = await bootstrapped(client);
      const proxy = await proxyFor(testDb);
      const { context, app } = await startThroughProxy(testDb, proxy);
      const sessions = new Sessions(context.db);
      const user = String((await context.db.query<{ id: string }>('select id from service_users'))[0]!.id);
      const count = async () =>
        Number((await context.db.query<{ n: number | string }>('select count(*) as n from service_sessions'))[0]!.n);
      try {
        const before = await count();

        // The insert is sent on a connection that dies: it may have run, so it is not run again (here it had not).
        proxy.dropOnNextUse();
        const lost = await sessions.create(user, 60_000).then(
          () => null,
          (error: unknown) => error,
        );
        assert.ok(lost instanceof ServiceUnavailableError, String(lost));
        assert.equal(await count(), before);

        // A pool without connections whose first new one is hung up on: nothing was sent, so it runs once more.
        const fresh = new Database(context.config.db);
        try {
          proxy.refuseNext(1);
          const made = proxy.connections;
          const token = await new Sessions(fresh).create(user, 60_000);
          assert.equal(proxy.connections - made, 2);
          assert.equal(await count(), before + 1);
          assert.notEqual(await sessions.find(token), null);
        } finally {
          await fresh.close();
        }

        // Only once: a second refusal in a row is the database being away.
        const away = new Database(context.config.db);
        try {
          proxy.refuseNext(2);
          const made = proxy.connections;
          const failed = await new Sessions(away).create(user, 60_000).then(
            () => null,
            (error: unknown) => error,
          );
          assert.ok(failed instanceof ServiceUnavailableError, String(failed));
          assert.equal(proxy.connections - made, 2);
          assert.equal(await count(), before + 1);
        } finally {
          await away.close();
        }
      } finally {
        await app.close();
        await context.close();
        await proxy.stop();
        await testDb.drop();
      }
    });

    it('answers lookups with 503 SERVICE_UNAVAILABLE while the database cannot be reached, and recovers', async () => {
      const testDb = await bootstrapped(client);
      const proxy = await proxyFor(testDb);
      const { context, app } = await startThroughProxy(testDb, proxy);
      try {
        proxy.refuseAll();
        await proxy.dropAll();
        context.accountability.clear();
        context.settings.clear();
        const requests = [
          app.inject({ method: 'POST', url: '/auth/login', payload: { email: ADMIN.email, password: ADMIN.password } }),
          app.inject({ method: 'GET', url: '/users/me', headers: admin }),
          app.inject({ method: 'GET', url: '/items/authors' }),
          app.inject({ method: 'POST', url: '/auth/refresh', payload: { refresh_token: 'not-a-live-token' } }),
        ];
        for (const response of await Promise.all(requests)) {
          assert.equal(response.statusCode, 503, response.body);
          assert.equal(errorCode(response), 'SERVICE_UNAVAILABLE');
          assert.deepEqual(Object.keys(json(response).errors[0]).sort(), ['extensions', 'message']);
          assert.doesNotMatch(
            response.body,
            /select |service_(users|sessions|access|settings)|ECONN|Connection terminated|Connection lost|closed state/,
          );
        }
        proxy.acceptAll();
        const back = await app.inject({ method: 'GET', url: '/users/me?fields=email', headers: admin });
        assert.equal(back.statusCode, 200, back.body);
      } finally {
        await app.close();
        await context.close();
        await proxy.stop();
        await testDb.drop();
      }
    });
  });
}

for (const client of testClients()) {
  describe(`lookups without a database (${clientLabel(client)})`, () => {
    it('answers login, tokens and public reads with 503 SERVICE_UNAVAILABLE once the pool is closed', async () => {
      const t = await startTestApp(client, { fixture: true });
      try {
        // Gone for every process (in pair mode both workers' pools).
        for (const { context } of t.workers) {
          await context.db.close();
          context.accountability.clear();
        }
        const responses = [
          await t.request({
            method: 'POST',
            url: '/auth/login',
            token: null,
            payload: { email: ADMIN.email, password: ADMIN.password },
          }),
          await t.request({ method: 'GET', url: '/users/me' }),
          await t.request({ method: 'GET', url: '/items/authors', token: null }),
        ];
        for (const response of responses) {
          assert.equal(response.statusCode, 503, response.body);
          assert.equal(errorCode(response), 'SERVICE_UNAVAILABLE');
        }
      } finally {
        await t.close().catch(() => {});
      }
    });
  });
}
