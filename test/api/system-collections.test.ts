/**
 * The system collections read like items (query language, permissions), the built-in app-access permissions, and
 * the `me` endpoints, on every database.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPolicy, createUserWithPolicies } from '../helpers/access-fixture.js';
import { ADMIN, errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientLabel, testClients } from '../helpers/test-db.js';

for (const client of testClients()) {
  describe(`system collections (${clientLabel(client)})`, () => {
    let t: TestApp;
    let appUser: { id: string; token: string; role: string };
    let plainUser: { id: string; token: string; role: string };
    let appPolicy: string;
    const get = (url: string, token?: string | null) => t.request({ method: 'GET', url, token });

    before(async () => {
      t = await startTestApp(client, { fixture: false });
      appPolicy = await createPolicy(t, {
        name: 'App users',
        app_access: true,
        permissions: [{ collection: 'service_users', fields: 'id,email', permissions: { status: { _eq: 'active' } } }],
      });
      appUser = await createUserWithPolicies(t, [appPolicy], { email: 'app@example.com' });
      plainUser = await createUserWithPolicies(t, [await createPolicy(t, { permissions: [] })], {
        email: 'plain@example.com',
      });
    });
    after(async () => {
      await t?.close();
    });

    it('lets admins read users, roles and policies with the query language, secrets concealed', async () => {
      const users = json(
        await get('/users?fields=email,role.name,password,token,tfa_secret&sort=email&filter[status][_eq]=active'),
      ).data;
      assert.deepEqual(users[0], {
        email: 'admin@example.com',
        role: { name: 'Administrator' },
        password: '**********',
        token: '**********',
        tfa_secret: null,
      });
      assert.equal(users.length, 3);
      const roles = json(await get('/roles?fields=name,users.email&filter[name][_eq]=Administrator')).data;
      assert.deepEqual(roles, [{ name: 'Administrator', users: [{ email: ADMIN.email }] }]);
      const policy = json(
        await get(`/policies/${appPolicy}?fields=name,app_access,permissions.collection,permissions.fields`),
      ).data;
      assert.deepEqual(policy, {
        name: 'App users',
        app_access: true,
        permissions: [{ collection: 'service_users', fields: ['id', 'email'] }],
      });
      assert.equal(json(await get('/settings?fields=project_name')).data.project_name, 'Strata');
      assert.deepEqual(json(await get('/policies/me/globals')).data, {
        app_access: true,
        admin_access: true,
        enforce_tfa: false,
      });
    });

    it('gives app users their own user, roles, policies and permissions, and nothing of others', async () => {
      const me = json(await get('/users/me', appUser.token)).data;
      assert.equal(me.email, 'app@example.com');
      assert.equal(me.id, appUser.id);
      assert.ok(!('password' in me) && !('token' in me));
      // The policy's own rule adds id and email of every active user on top of the built-in own-user access.
      const users = json(await get('/users?fields=id,email&sort=email', appUser.token)).data;
      assert.deepEqual(
        users.map((u: { email: string }) => u.email),
        ['admin@example.com', 'app@example.com', 'plain@example.com'],
      );
      const admin = json(await get(`/users?fields=email,title&filter[email][_eq]=${ADMIN.email}`, appUser.token)).data;
      assert.deepEqual(admin, [{ email: ADMIN.email, title: null }]);
      assert.deepEqual(json(await get('/roles/me?fields=id', appUser.token)).data, [{ id: appUser.role }]);
      assert.deepEqual(json(await get('/policies?fields=name', appUser.token)).data, [{ name: 'App users' }]);
      assert.deepEqual(json(await get('/policies/me/globals', appUser.token)).data, {
        app_access: true,
        admin_access: false,
        enforce_tfa: false,
      });
      const permissions = json(await get('/permissions/me', appUser.token)).data;
      assert.deepEqual(permissions.service_users.read, {
        access: 'partial',
        fields: [
          'id',
          'email',
          'first_name',
          'last_name',
          'location',
          'title',
          'description',
          'tags',
          'avatar',
          'language',
          'tfa_secret',
          'status',
          'role',
          'last_access',
          'last_page',
          'provider',
          'email_notifications',
          'appearance',
          'theme_dark',
          'theme_light',
          'policies',
        ],
        presets: {},
      });
      // The built-in update rule: the caller's own profile fields, nothing that grants access.
      assert.equal(permissions.service_users.update.access, 'partial');
      assert.ok(permissions.service_users.update.fields.includes('first_name'));
      assert.ok(
        !['role', 'status', 'policies', 'token', 'tfa_secret'].some((f) =>
          permissions.service_users.update.fields.includes(f),
        ),
      );
      assert.deepEqual(permissions.service_users.delete, { access: 'none' });
      assert.equal(
        errorCode(await get('/access?fields=id&filter[role][_eq]=00000000-0000-0000-0000-000000000000', appUser.token)),
        undefined,
      );
      assert.equal(errorCode(await get('/settings', appUser.token)), undefined);
    });

    it('refuses users without app access and anonymous callers', async () => {
      assert.equal(errorCode(await get('/users/me', plainUser.token)), 'FORBIDDEN');
      assert.equal(errorCode(await get('/roles', plainUser.token)), 'FORBIDDEN');
      assert.deepEqual(json(await get('/permissions/me', plainUser.token)).data, {});
      assert.deepEqual(json(await get('/policies/me/globals', plainUser.token)).data, {
        app_access: false,
        admin_access: false,
        enforce_tfa: false,
      });
      const anonymous = await get('/users/me', null);
      assert.equal(anonymous.statusCode, 401);
      assert.equal(errorCode(anonymous), 'INVALID_CREDENTIALS');
      assert.equal(errorCode(await get('/users', null)), 'FORBIDDEN');
      assert.deepEqual(json(await get('/policies/me/globals', null)).data, {
        app_access: false,
        admin_access: false,
        enforce_tfa: false,
      });
    });
  });
}
