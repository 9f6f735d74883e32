/**
 * Realtime on system collections (Directus lets admins subscribe to directus_users and the like; ours are
 * service_*): an admin's subscription to service_users hears a user created through /users, with the fields it
 * asked for; a user without a permission on service_users cannot subscribe.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { ADMIN, json, listenOnLoopback, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createPolicy, createUserWithPolicies } from '../helpers/access-fixture.js';
import { openSocket, subscribe, type TestSocket } from '../helpers/ws-client.js';

for (const client of testClients()) {
  describe(`websocket on system collections (${clientLabel(client)})`, () => {
    let t: TestApp;
    let url: string;
    const sockets: TestSocket[] = [];
    before(async () => {
      t = await startTestApp(client, { env: { WEBSOCKETS_ENABLED: 'true', WEBSOCKETS_HEARTBEAT_ENABLED: 'false' } });
      url = await listenOnLoopback(t);
    });
    after(async () => {
      for (const socket of sockets) socket.close();
      await t?.close();
    });

    it('an admin subscribed to service_users hears a user created through /users', async () => {
      const socket = await openSocket(url, ADMIN.token);
      sockets.push(socket);
      await subscribe(socket, 'service_users', 'users', {
        fields: ['email'],
        filter: { email: { _ends_with: '@realtime.test' } },
      });
      const res = await t.request({
        method: 'POST',
        url: '/users',
        payload: { email: 'someone@realtime.test', password: 'a long enough password' },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(await socket.next(), {
        type: 'subscription',
        event: 'create',
        data: [{ email: 'someone@realtime.test' }],
        uid: 'users',
      });
      assert.ok(json(res).data.id);
    });

    it('a user without a permission on service_users cannot subscribe to it', async () => {
      const policy = await createPolicy(t, { permissions: [{ collection: 'authors', fields: 'id' }] });
      const user = await createUserWithPolicies(t, [policy]);
      const socket = await openSocket(url, user.token);
      sockets.push(socket);
      socket.send({ type: 'subscribe', collection: 'service_users', uid: 'no' });
      const answer = await socket.next();
      assert.equal(answer.status, 'error', JSON.stringify(answer));
      assert.equal(answer.error.code, 'FORBIDDEN');
    });
  });
}
