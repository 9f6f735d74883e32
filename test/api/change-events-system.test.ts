/**
 * Change events of system collections: a user's row written outside the item writer (the suspension after too many
 * failed logins, two-factor enabled and disabled — Directus writes these through its items service, so it announces
 * them too), the settings singleton, and mutations through /graphql/system.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import { errorCode, json, startTestApp, type TestApp, type TestRequest } from '../helpers/test-app.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { queryBuilder } from '../../src/db/connection.js';
import type { ChangeEvent } from '../../src/engine/write/change-events.js';

for (const client of testClients()) {
  describe(`change events of system collections (${clientLabel(client)})`, () => {
    let t: TestApp;
    let heard: ChangeEvent[] = [];
    // In pair mode a write answered by the other worker reaches t.context's listeners through the relay, after its
    // answer (change events are not waited for): each request waits until the relay is quiet, at once with one worker.
    const request = async (options: TestRequest) => {
      const res = await t.request(options);
      await t.relayed();
      return res;
    };

    before(async () => {
      t = await startTestApp(client);
      t.context.changes.listen((event) => heard.push(event));
    });
    after(async () => {
      await t?.close();
    });

    const login = (email: string, password: string, otp?: string) =>
      request({ method: 'POST', url: '/auth/login', payload: { email, password, ...(otp ? { otp } : {}) } });
    const newUser = async (email: string, password: string): Promise<string> => {
      const res = await request({ method: 'POST', url: '/users?fields=id', payload: { email, password } });
      assert.equal(res.statusCode, 200, res.body);
      return String(json(res).data.id);
    };
    const updates = (id: string) =>
      heard.filter((e) => e.collection === 'service_users' && e.action === 'update' && e.keys.map(String).includes(id));

    it('a user suspended after too many failed logins is announced as an update of its row', async () => {
      await queryBuilder(t.context.db)('service_settings').update({ auth_login_attempts: 2 });
      const id = await newUser('guess-events@example.com', 'right-password');
      heard = [];
      for (let i = 0; i < 3; i++)
        assert.equal(errorCode(await login('guess-events@example.com', 'wrong')), 'INVALID_CREDENTIALS');
      const row = await queryBuilder(t.context.db)('service_users').select('status').where('id', id).first();
      assert.equal(row.status, 'suspended');
      assert.deepEqual(
        heard.map((e) => ({ ...e, keys: e.keys.map(String) })),
        [{ collection: 'service_users', action: 'update', keys: [id] }],
      );
    });

    it('the settings singleton and /graphql/system mutations are announced', async () => {
      heard = [];
      const settings = await request({ method: 'PATCH', url: '/settings', payload: { project_name: 'Evented' } });
      assert.equal(settings.statusCode, 200, settings.body);
      const res = await request({
        method: 'POST',
        url: '/graphql/system',
        payload: { query: 'mutation { create_roles_item(data: {name: "GraphQL role"}) { id } }' },
      });
      assert.equal(res.statusCode, 200, res.body);
      const role = String(json(res).data.create_roles_item.id);
      const deleted = await request({
        method: 'POST',
        url: '/graphql/system',
        payload: { query: `mutation { delete_roles_item(id: "${role}") { id } }` },
      });
      assert.equal(deleted.statusCode, 200, deleted.body);
      assert.equal(json(deleted).errors, undefined, deleted.body);
      assert.deepEqual(
        heard.map((e) => ({ collection: e.collection, action: e.action, keys: e.keys.map(String) })).slice(1),
        [
          { collection: 'service_roles', action: 'create', keys: [role] },
          { collection: 'service_roles', action: 'delete', keys: [role] },
        ],
      );
      assert.equal(heard[0]!.collection, 'service_settings');
      assert.ok(['create', 'update'].includes(heard[0]!.action));
    });

    it('two-factor enabled and disabled are announced as updates of the row', async () => {
      const id = await newUser('tfa-events@example.com', 'tfa-password');
      const { access_token: token } = json(await login('tfa-events@example.com', 'tfa-password')).data;
      const generated = json(
        await request({
          method: 'POST',
          url: '/users/me/tfa/generate',
          payload: { password: 'tfa-password' },
          token,
        }),
      ).data;
      const totp = new TOTP({ secret: Secret.fromBase32(generated.secret) });
      heard = [];
      const enabled = await request({
        method: 'POST',
        url: '/users/me/tfa/enable',
        payload: { secret: generated.secret, otp: totp.generate() },
        token,
      });
      assert.equal(enabled.statusCode, 204, enabled.body);
      assert.equal(updates(id).length, 1);
      const disabled = await request({
        method: 'POST',
        url: '/users/me/tfa/disable',
        payload: { otp: totp.generate() },
        token,
      });
      assert.equal(disabled.statusCode, 204, disabled.body);
      assert.equal(updates(id).length, 2);
      assert.equal(heard.length, 2);
    });
  });
}
