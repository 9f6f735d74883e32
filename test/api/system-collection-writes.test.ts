/**
 * Writes to the system collections on every database (Directus docs: Access control, Users, roles and policies): users (passwords hashed, logins with
 * the new password, unique emails, static tokens by admins only), roles, policies, access and permissions (checked,
 * and in force from the next request), /users/me and /settings, non-admins refused, and the last admin kept.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPolicy, createUserWithPolicies } from '../helpers/access-fixture.js';
import { ADMIN, errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { queryBuilder } from '../../src/db/connection.js';

type Row = Record<string, unknown>;

for (const client of testClients()) {
  describe(`system collection writes (${clientLabel(client)})`, () => {
    let t: TestApp;
    let appUser: { id: string; token: string; role: string };
    let plainUser: { id: string; token: string; role: string };

    const send = (method: 'POST' | 'PATCH' | 'DELETE' | 'GET', url: string, body?: unknown, token?: string | null) =>
      t.request({
        method,
        url,
        token,
        ...(body === undefined
          ? {}
          : { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      });
    const ok = async (method: 'POST' | 'PATCH' | 'GET', url: string, body?: unknown, token?: string | null) => {
      const response = await send(method, url, body, token);
      assert.equal(response.statusCode, 200, response.body);
      return json(response).data;
    };
    const login = (email: string, password: string) =>
      t.request({ method: 'POST', url: '/auth/login', payload: { email, password }, token: null });
    const userRow = async (id: string): Promise<Row> => ({
      ...(await queryBuilder(t.context.db)('service_users').where({ id }).first()),
    });

    before(async () => {
      t = await startTestApp(client, { fixture: true });
      const app = await createPolicy(t, { name: 'App', app_access: true, permissions: [] });
      appUser = await createUserWithPolicies(t, [app], { email: 'app@example.com' });
      plainUser = await createUserWithPolicies(t, [await createPolicy(t, { permissions: [] })], {
        email: 'plain@example.com',
      });
    });
    after(async () => {
      await t?.close();
    });

    it('creates users with hashed passwords that log in, and re-hashes a changed password', async () => {
      const created = await ok('POST', '/users?fields=id,email,password,status', {
        email: 'new@example.com',
        password: 'first-password',
        first_name: 'New',
      });
      assert.deepEqual(
        { ...created, id: undefined },
        { id: undefined, email: 'new@example.com', password: '**********', status: 'active' },
      );
      assert.match(String((await userRow(created.id)).password), /^\$argon2id\$/);
      assert.equal((await login('new@example.com', 'first-password')).statusCode, 200);
      assert.equal((await send('PATCH', `/users/${created.id}`, { password: 'second-password' })).statusCode, 200);
      assert.match(String((await userRow(created.id)).password), /^\$argon2id\$/);
      assert.equal((await login('new@example.com', 'first-password')).statusCode, 401);
      assert.equal((await login('new@example.com', 'second-password')).statusCode, 200);
      // The concealed value read back and sent again keeps the stored hash.
      const hash = (await userRow(created.id)).password;
      await ok('PATCH', `/users/${created.id}`, { password: '**********', last_name: 'User' });
      assert.equal((await userRow(created.id)).password, hash);
      const duplicate = await send('POST', '/users', { email: 'new@example.com' });
      assert.equal(duplicate.statusCode, 400);
      assert.equal(errorCode(duplicate), 'RECORD_NOT_UNIQUE');
    });

    it('validates a user’s email on create and update, as Directus does (FAILED_VALIDATION on email)', async () => {
      const invalid = {
        message: 'Validation failed for field "email". Value has to be a valid email address.',
        extensions: { code: 'FAILED_VALIDATION', field: 'email', path: [], type: 'email' },
      };
      const created = await send('POST', '/users', { email: 'not-an-email', password: 'a-long-password' });
      assert.equal(created.statusCode, 400);
      assert.deepEqual(json(created).errors, [invalid]);
      const batch = await send('POST', '/users', [{ email: 'ok@example.com' }, { email: 'no@domain' }]);
      assert.equal(batch.statusCode, 400);
      assert.deepEqual(json(batch).errors, [{ ...invalid, extensions: { ...invalid.extensions, path: [1] } }]);
      assert.equal(
        await queryBuilder(t.context.db)('service_users').where({ email: 'ok@example.com' }).first(),
        undefined,
      );
      const updated = await send('PATCH', `/users/${plainUser.id}`, { email: 'plain at example.com' });
      assert.equal(updated.statusCode, 400);
      assert.deepEqual(json(updated).errors, [invalid]);
      const many = await send('PATCH', '/users', { keys: [plainUser.id], data: { email: 'x@' } });
      assert.deepEqual(json(many).errors, [invalid]);
      assert.equal((await userRow(plainUser.id)).email, 'plain@example.com');
      // No email at all is allowed (users without one log in by token or SSO).
      const none = await ok('POST', '/users?fields=email', { email: null });
      assert.equal(none.email, null);
    });

    it('sets static tokens for admins only, and a suspended user is locked out on the next request', async () => {
      const user = await ok('POST', '/users?fields=id,token', {
        email: 'tokened@example.com',
        token: 'static-token-for-tests',
        role: appUser.role,
      });
      assert.equal(user.token, '**********');
      assert.equal(
        (await ok('GET', '/users/me?fields=email', undefined, 'static-token-for-tests')).email,
        'tokened@example.com',
      );
      // Even a policy granting every field of users cannot set a token.
      const broad = await createPolicy(t, {
        permissions: [
          { collection: 'service_users', action: 'update', fields: '*', permissions: { id: { _eq: '$CURRENT_USER' } } },
        ],
      });
      const broadUser = await createUserWithPolicies(t, [broad]);
      const refused = await send('PATCH', `/users/${broadUser.id}`, { token: 'mine' }, broadUser.token);
      assert.equal(refused.statusCode, 403);
      assert.match(json(refused).errors[0].message, /field "token"/);
      await ok('PATCH', `/users/${user.id}`, { status: 'suspended' });
      assert.equal((await send('GET', '/users/me', undefined, 'static-token-for-tests')).statusCode, 401);
    });

    it('creates roles, policies, access and permissions that take effect on the next request', async () => {
      const member = await createUserWithPolicies(t, []);
      assert.equal((await send('GET', '/items/articles?fields=id,title', undefined, member.token)).statusCode, 403);
      const role = await ok('POST', '/roles?fields=id,name', { name: 'Readers' });
      const policy = await ok('POST', '/policies?fields=id,name,admin_access', {
        name: 'Read articles',
        app_access: false,
      });
      assert.equal(policy.admin_access, false);
      await ok('POST', '/access', { role: role.id, policy: policy.id });
      await ok('PATCH', `/users/${member.id}`, { role: role.id });
      const permission = await ok('POST', '/permissions?fields=id,fields,permissions', {
        policy: policy.id,
        collection: 'articles',
        action: 'read',
        fields: ['id', 'title'],
        permissions: { status: { _eq: 'published' } },
      });
      assert.deepEqual(permission.fields, ['id', 'title']);
      assert.deepEqual(permission.permissions, { status: { _eq: 'published' } });
      const rows = await ok('GET', '/items/articles?fields=id,title&sort=id', undefined, member.token);
      assert.deepEqual(
        rows.map((r: Row) => r.id),
        [1, 2, 4, 6],
      );
      await ok('PATCH', `/permissions/${permission.id}`, { fields: ['id'] });
      assert.equal((await send('GET', '/items/articles?fields=id,title', undefined, member.token)).statusCode, 403);
      assert.equal((await ok('GET', '/items/articles?fields=id', undefined, member.token)).length, 4);
      // Nested: a role created with its policies (access rows through the m2m).
      const nested = await ok('POST', '/roles?fields=id,policies.policy', {
        name: 'Nested',
        policies: [{ policy: policy.id }],
      });
      assert.deepEqual(nested.policies, [{ policy: policy.id }]);
      assert.equal((await send('DELETE', `/permissions/${permission.id}`)).statusCode, 204);
      assert.equal((await send('GET', '/items/articles?fields=id', undefined, member.token)).statusCode, 403);
    });

    it('validates permission actions and collections', async () => {
      const policy = await ok('POST', '/policies?fields=id', { name: 'Checked' });
      const bad = await send('POST', '/permissions', {
        policy: policy.id,
        collection: 'nope',
        action: 'fly',
        fields: ['*'],
      });
      assert.equal(bad.statusCode, 400);
      assert.deepEqual(
        json(bad).errors.map((e: { extensions: Row }) => [e.extensions.code, e.extensions.field, e.extensions.type]),
        [
          ['FAILED_VALIDATION', 'action', 'in'],
          ['FAILED_VALIDATION', 'collection', 'in'],
        ],
      );
      const filter = await send('POST', '/permissions', {
        policy: policy.id,
        collection: 'articles',
        action: 'read',
        permissions: { title: { _bogus: 1 } },
      });
      assert.equal(errorCode(filter), 'FAILED_VALIDATION');
      assert.equal(
        await queryBuilder(t.context.db)('service_permissions')
          .where({ policy: policy.id })
          .count({ n: '*' })
          .then((r) => Number(r[0]!.n)),
        0,
      );
    });

    it('updates and deletes by keys and by query', async () => {
      const created = await ok('POST', '/roles?fields=id,name', [
        { name: 'tmp one' },
        { name: 'tmp two' },
        { name: 'kept' },
      ]);
      // Read back in key order (random uuids): put them in the order they were sent.
      const keys = ['tmp one', 'tmp two', 'kept'].map((name) => created.find((r: Row) => r.name === name).id);
      const changed = await ok('PATCH', '/roles?fields=icon', { keys: keys.slice(0, 2), data: { icon: 'star' } });
      assert.deepEqual(changed, [{ icon: 'star' }, { icon: 'star' }]);
      const batch = await ok('PATCH', '/roles?fields=name&sort=name', [
        { id: keys[0], name: 'tmp 1' },
        { id: keys[1], name: 'tmp 2' },
      ]);
      assert.deepEqual(batch, [{ name: 'tmp 1' }, { name: 'tmp 2' }]);
      assert.equal(
        (await send('DELETE', '/roles', { query: { filter: { name: { _starts_with: 'tmp' } } } })).statusCode,
        204,
      );
      assert.deepEqual(
        (await ok('GET', `/roles?fields=name&filter[id][_in]=${keys.join(',')}`)).map((r: Row) => r.name),
        ['kept'],
      );
      assert.equal((await send('DELETE', '/roles', [keys[2]])).statusCode, 204);
      assert.equal((await send('DELETE', `/roles/${keys[2]}`)).statusCode, 403);
    });

    it('refuses non-admins without permissions on the system collections', async () => {
      const attempts = [
        await send('POST', '/users', { email: 'sneaky@example.com' }, appUser.token),
        await send('PATCH', `/users/${plainUser.id}`, { first_name: 'x' }, appUser.token),
        await send('PATCH', `/roles/${appUser.role}`, { name: 'x' }, appUser.token),
        await send('POST', '/policies', { name: 'mine', admin_access: true }, appUser.token),
        await send('POST', '/access', { user: appUser.id, policy: appUser.role }, appUser.token),
        await send('DELETE', `/users/${plainUser.id}`, undefined, appUser.token),
        await send('PATCH', '/settings', { project_name: 'x' }, appUser.token),
        await send('POST', '/permissions', { collection: 'articles', action: 'read' }, null),
      ];
      for (const response of attempts) assert.equal(response.statusCode, 403, response.body);
      assert.equal(
        await queryBuilder(t.context.db)('service_users')
          .where({ email: 'sneaky@example.com' })
          .count({ n: '*' })
          .then((r) => Number(r[0]!.n)),
        0,
      );
    });

    it('lets app users change their own profile through /users/me, never their role, status or token', async () => {
      await queryBuilder(t.context.db)('service_users').where({ id: appUser.id }).update({ password: null });
      const me = await ok(
        'PATCH',
        '/users/me?fields=id,first_name,title',
        { first_name: 'Appy', title: 'Tester' },
        appUser.token,
      );
      assert.deepEqual(me, { id: appUser.id, first_name: 'Appy', title: 'Tester' });
      for (const payload of [
        { role: null },
        { status: 'active' },
        { token: 'x' },
        { tfa_secret: 'x' },
        { policies: [] },
      ]) {
        const refused = await send('PATCH', '/users/me', payload, appUser.token);
        assert.equal(refused.statusCode, 403, JSON.stringify(payload));
      }
      assert.equal(
        (await send('PATCH', `/users/${appUser.id}`, { first_name: 'Direct' }, appUser.token)).statusCode,
        200,
      );
      await ok('PATCH', '/users/me', { password: 'app-password' }, appUser.token);
      assert.equal((await login('app@example.com', 'app-password')).statusCode, 200);
      // The page the app shows is recorded for anyone signed in (Directus's bookkeeping, not a permission).
      assert.equal(
        (await send('PATCH', '/users/me/track/page', { last_page: '/content/articles' }, plainUser.token)).statusCode,
        204,
      );
      assert.equal((await userRow(plainUser.id)).last_page, '/content/articles');
      assert.equal(errorCode(await send('PATCH', '/users/me/track/page', {}, plainUser.token)), 'INVALID_PAYLOAD');
      // Without app access there is no built-in rule.
      assert.equal((await send('PATCH', '/users/me', { first_name: 'x' }, plainUser.token)).statusCode, 403);
      assert.equal(errorCode(await send('PATCH', '/users/me', { first_name: 'x' }, null)), 'INVALID_CREDENTIALS');
      assert.equal((await userRow(plainUser.id)).first_name, null);
    });

    it('updates the settings singleton, seen at once by /server/info', async () => {
      assert.equal((await ok('GET', '/server/info')).project.project_name, 'Strata');
      const settings = await ok('PATCH', '/settings?fields=project_name,auth_login_attempts', {
        project_name: 'Renamed',
        auth_login_attempts: 5,
      });
      assert.deepEqual(settings, { project_name: 'Renamed', auth_login_attempts: 5 });
      assert.equal((await ok('GET', '/server/info')).project.project_name, 'Renamed');
      assert.equal(errorCode(await send('PATCH', '/settings', { project_name: 'x'.repeat(101) })), 'VALUE_TOO_LONG');
      // The password policy applies to the next password set, from the next request on.
      await ok('PATCH', '/settings', { auth_password_policy: '/^.{12,}$/' });
      const short = await send('POST', '/users', { email: 'short@example.com', password: 'short' });
      assert.equal(short.statusCode, 400);
      assert.deepEqual(json(short).errors[0].extensions, {
        code: 'FAILED_VALIDATION',
        field: 'password',
        path: [],
        type: 'regex',
      });
      assert.equal((await send('PATCH', '/users/me', { password: 'tiny' }, appUser.token)).statusCode, 400);
      await ok('POST', '/users', { email: 'long@example.com', password: 'long enough password' });
      await ok('PATCH', '/settings', { auth_password_policy: null });
      await ok('POST', '/users', { email: 'short@example.com', password: 'short' });
    });

    it('keeps the last active admin', async () => {
      const admin = await queryBuilder(t.context.db)('service_users').where({ email: ADMIN.email }).first();
      const adminPolicy = (await queryBuilder(t.context.db)('service_policies').where({ admin_access: true }).first())
        .id;
      const refusals = [
        await send('DELETE', `/users/${admin.id}`),
        await send('PATCH', `/users/${admin.id}`, { status: 'suspended' }),
        await send('PATCH', `/users/${admin.id}`, { role: null }),
        await send('PATCH', `/policies/${adminPolicy}`, { admin_access: false }),
        await send('DELETE', `/roles/${admin.role}`),
      ];
      for (const response of refusals) {
        assert.equal(response.statusCode, 422, response.body);
        assert.equal(errorCode(response), 'UNPROCESSABLE_CONTENT');
      }
      assert.equal((await userRow(admin.id)).status, 'active');
      // With a second admin, the first may go.
      const second = await ok('POST', '/users?fields=id', { email: 'second-admin@example.com', role: admin.role });
      await ok('PATCH', `/users/${second.id}`, { token: 'second-admin-token' });
      assert.equal((await send('DELETE', `/users/${admin.id}`, undefined, 'second-admin-token')).statusCode, 204);
      assert.equal((await send('GET', '/users/me', undefined, ADMIN.token)).statusCode, 401);
      assert.equal((await send('DELETE', `/users/${second.id}`, undefined, 'second-admin-token')).statusCode, 422);
    });
  });
}
