/**
 * Realtime across two real Strata processes on one PostgreSQL database and one Redis: items created and updated
 * through REST on instance A reach /websocket subscribers on instance B, each as that subscriber may read them — an
 * admin every row, a restricted user only its rows and fields (an item leaving its rules as a delete), an
 * unauthenticated socket only what the Public policy grants. Runs when TEST_PG_URL and TEST_REDIS_URL are set.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { PUBLIC_POLICY_ID } from '../../src/app/bootstrap.js';
import { createTestDatabase, knexFor, type TestDb } from '../helpers/test-db.js';
import { StrataProcess } from '../helpers/strata-process.js';
import { nextRows, openSocket, subscribe, type TestSocket } from '../helpers/ws-client.js';

const ADMIN_TOKEN = 'strata-realtime-cluster-admin-token';
const USER_TOKEN = `realtime-cluster-user-${randomUUID()}`;
const enabled = Boolean(process.env.TEST_PG_URL && process.env.TEST_REDIS_URL);

describe(
  'realtime across two instances sharing PostgreSQL and Redis',
  { skip: enabled ? false : 'needs TEST_PG_URL and TEST_REDIS_URL' },
  () => {
    let db: TestDb;
    let a: StrataProcess;
    let b: StrataProcess;
    const sockets: TestSocket[] = [];

    before(async () => {
      db = await createTestDatabase('pg', { fixture: true });
      const env = {
        ...db.env,
        SECRET: 'strata-cluster-secret-0123456789abcdef',
        ADMIN_EMAIL: 'admin@example.com',
        ADMIN_PASSWORD: 'strata-cluster-password',
        ADMIN_TOKEN,
        REDIS: process.env.TEST_REDIS_URL!,
        REDIS_NAMESPACE: `strata-realtime-${randomBytes(4).toString('hex')}`,
        RATE_LIMITER_ENABLED: 'false',
        PRESSURE_LIMITER_ENABLED: 'false',
        WEBSOCKETS_ENABLED: 'true',
        WEBSOCKETS_REST_AUTH: 'public',
        WEBSOCKETS_HEARTBEAT_ENABLED: 'false',
      };
      // A installs the system tables; the access rows are written before B starts, so B has nothing cached.
      a = await StrataProcess.start(env);
      const k = knexFor(db);
      try {
        const policy = randomUUID();
        const role = randomUUID();
        await k('service_policies').insert({
          id: policy,
          name: 'Team readers',
          app_access: false,
          admin_access: false,
        });
        await k('service_permissions').insert([
          {
            policy,
            collection: 'authors',
            action: 'read',
            fields: 'id,name',
            permissions: JSON.stringify({ name: { _starts_with: 'Team' } }),
          },
          {
            policy: PUBLIC_POLICY_ID,
            collection: 'authors',
            action: 'read',
            fields: 'id,name',
            permissions: JSON.stringify({ name: { _starts_with: 'Public' } }),
          },
        ]);
        await k('service_roles').insert({ id: role, name: 'Team' });
        await k('service_access').insert({ id: randomUUID(), role, user: null, policy });
        await k('service_users').insert({
          id: randomUUID(),
          email: 'team@example.com',
          status: 'active',
          role,
          token: USER_TOKEN,
          provider: 'default',
        });
      } finally {
        await k.destroy();
      }
      b = await StrataProcess.start(env);
    });

    after(async () => {
      for (const socket of sockets) socket.close();
      await Promise.all([a?.stop('SIGKILL'), b?.stop('SIGKILL')]);
      await db?.drop();
    });

    const write = async (method: string, path: string, body: unknown) => {
      const response = await fetch(`${a.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      assert.equal(response.status, 200, `${text}\n${a.output}`);
      return (JSON.parse(text) as { data: { id: number } }).data;
    };

    it('delivers writes made on A to subscribers on B, each reading only what it may', async () => {
      const admin = await openSocket(b.url, ADMIN_TOKEN);
      const user = await openSocket(b.url, USER_TOKEN);
      const anonymous = await openSocket(b.url);
      sockets.push(admin, user, anonymous);
      await subscribe(admin, 'authors', 'admin', { fields: ['id', 'name', 'bio'] });
      await subscribe(user, 'authors', 'user', { fields: ['*'] });
      await subscribe(anonymous, 'authors', 'public', { fields: ['*'] });

      const names = ['Secret 1', 'Team 1', 'Public 1', 'Secret 2', 'Team 2', 'Public 2'];
      const ids: Record<string, number> = {};
      for (const name of names) ids[name] = (await write('POST', '/items/authors?fields=id', { name, bio: 'b' })).id;

      // Events that queue up behind a re-read may come as one message: the rows are compared, in commit order.
      assert.deepEqual(
        await nextRows(admin, 'create', names.length),
        names.map((name) => ({ id: ids[name], name, bio: 'b' })),
      );
      // The rows after each socket's first are its next readable ones, so nothing came in between.
      for (const [socket, prefix] of [
        [user, 'Team'],
        [anonymous, 'Public'],
      ] as const) {
        assert.deepEqual(
          await nextRows(socket, 'create', 2),
          [`${prefix} 1`, `${prefix} 2`].map((name) => ({ id: ids[name], name })),
          `${prefix}: only its rows, without bio`,
        );
      }

      // Team 1 leaves the user's rules (a delete for it, nothing for the public socket); the others stay readable.
      await write('PATCH', `/items/authors/${ids['Team 1']}`, { name: 'Secret 3' });
      assert.deepEqual(await user.next(), {
        type: 'subscription',
        event: 'delete',
        data: [String(ids['Team 1'])],
        uid: 'user',
      });
      await write('PATCH', `/items/authors/${ids['Public 2']}`, { name: 'Public 2 renamed' });
      await write('PATCH', `/items/authors/${ids['Team 2']}`, { name: 'Team 2 renamed' });
      assert.deepEqual(await user.next(), {
        type: 'subscription',
        event: 'update',
        data: [{ id: ids['Team 2'], name: 'Team 2 renamed' }],
        uid: 'user',
      });
      assert.deepEqual(await anonymous.next(), {
        type: 'subscription',
        event: 'update',
        data: [{ id: ids['Public 2'], name: 'Public 2 renamed' }],
        uid: 'public',
      });
      assert.equal((await admin.next()).data[0].name, 'Secret 3');
    });
  },
);
