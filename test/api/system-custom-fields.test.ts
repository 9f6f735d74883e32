/**
 * Admins' own fields on the system collections (issue 30), as Directus opens directus_users and its other
 * user-facing collections to them: `POST /fields/service_users` adds a real column, read and written through /users,
 * /settings and /graphql/system; only such fields may change or go (Strata's own stay 403), the internal collections
 * stay closed, and schema snapshots keep these fields (and only these), so applying one to a fresh database makes them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { ADMIN, errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientLabel, knexFor, testClients } from '../helpers/test-db.js';

type FieldObject = { collection: string; field: string; type: string; meta: Record<string, unknown> | null };
type Snapshot = { collections: { collection: string }[]; fields: FieldObject[]; relations: unknown[] };

for (const client of testClients()) {
  describe(`custom fields on system collections (${clientLabel(client)})`, () => {
    let t: TestApp;
    let knex: Knex;
    let adminId: string;
    const request = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
      t.request({ method, url, ...(payload === undefined ? {} : { payload: payload as object }) });
    const ok = async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) => {
      const response = await request(method, url, payload);
      assert.ok(response.statusCode < 300, `${method} ${url}: ${response.statusCode} ${response.body}`);
      return response.statusCode === 204 ? null : json(response).data;
    };
    const graphql = async (query: string) => {
      const response = await t.request({ method: 'POST', url: '/graphql/system', payload: { query } });
      assert.equal(response.statusCode, 200, response.body);
      return json(response).data;
    };

    before(async () => {
      t = await startTestApp(client);
      knex = knexFor(t.testDb);
      adminId = (await ok('GET', '/users/me?fields=id')).id;
    });
    after(async () => {
      await knex?.destroy();
      await t?.close();
    });

    it('adds a real column to service_users, read and written through /users and GraphQL', async () => {
      const field = await ok('POST', '/fields/service_users', {
        field: 'nickname',
        type: 'string',
        meta: { interface: 'input', note: 'What friends say' },
        schema: { max_length: 40 },
      });
      assert.equal(field.collection, 'service_users');
      assert.equal(field.type, 'string');
      assert.equal(field.meta.note, 'What friends say');
      assert.ok(await knex.schema.hasColumn('service_users', 'nickname'));
      assert.equal((await ok('GET', '/fields/service_users/nickname')).schema.max_length, 40);

      await ok('PATCH', `/users/${adminId}`, { nickname: 'Ada' });
      assert.equal((await ok('GET', '/users/me?fields=nickname')).nickname, 'Ada');
      assert.deepEqual(await ok('GET', `/users?fields=id,nickname&filter[nickname][_eq]=Ada`), [
        { id: adminId, nickname: 'Ada' },
      ]);
      assert.equal((await ok('GET', '/users/me')).nickname, 'Ada', '* includes it');
      assert.equal((await graphql('{ users_me { nickname } }')).users_me.nickname, 'Ada');
      const updated = await graphql(`
        mutation {
          update_users_me(data: { nickname: "Bea" }) {
            nickname
          }
        }
      `);
      assert.equal(updated.update_users_me.nickname, 'Bea');
      const created = await ok('POST', '/users', { email: 'nick@example.com', nickname: 'Cy' });
      assert.equal((await ok('GET', `/users/${created.id}?fields=nickname`)).nickname, 'Cy');
    });

    it('opens roles, policies and settings too', async () => {
      await ok('POST', '/fields/service_roles', { field: 'department', type: 'string' });
      await ok('POST', '/fields/service_policies', {
        field: 'reviewed',
        type: 'boolean',
        schema: { default_value: false },
      });
      await ok('POST', '/fields/service_settings', { field: 'support_email', type: 'string' });
      const role = await ok('POST', '/roles', { name: 'Ops', department: 'IT' });
      assert.equal(role.department, 'IT');
      await ok('PATCH', '/settings', { support_email: 'help@example.com' });
      assert.equal((await ok('GET', '/settings?fields=support_email')).support_email, 'help@example.com');
      assert.equal((await graphql('{ settings { support_email } }')).settings.support_email, 'help@example.com');
    });

    it('keeps Strata’s own fields and internal collections closed', async () => {
      for (const [method, url, payload] of [
        ['POST', '/fields/service_sessions', { field: 'x', type: 'string' }],
        ['POST', '/fields/service_fields', { field: 'x', type: 'string' }],
        ['POST', '/fields/service_activity', { field: 'x', type: 'string' }],
        ['PATCH', '/fields/service_users/email', { meta: { note: 'x' } }],
        ['PATCH', '/fields/service_users', [{ field: 'email', meta: { note: 'x' } }]],
        ['DELETE', '/fields/service_users/email', undefined],
        ['DELETE', '/fields/service_roles/users', undefined],
        ['PATCH', '/collections/service_users', { meta: { note: 'x' } }],
      ] as const) {
        const response = await request(method, url, payload);
        assert.equal(response.statusCode, 403, `${method} ${url}: ${response.body}`);
        assert.equal(errorCode(response), 'FORBIDDEN');
      }
      const taken = await request('POST', '/fields/service_users', { field: 'email', type: 'string' });
      assert.equal(errorCode(taken), 'INVALID_PAYLOAD');
      assert.ok(await knex.schema.hasColumn('service_users', 'email'));
      const notAdmin = await t.request({
        method: 'POST',
        url: '/fields/service_users',
        payload: { field: 'y', type: 'string' },
        token: null,
      });
      assert.equal(notAdmin.statusCode, 403);
    });

    it('changes and deletes an admin’s own field', async () => {
      await ok('POST', '/fields/service_users', { field: 'shoe_size', type: 'integer' });
      assert.equal((await ok('PATCH', '/fields/service_users/shoe_size', { meta: { note: 'EU' } })).meta.note, 'EU');
      await ok('DELETE', '/fields/service_users/shoe_size');
      assert.equal(await knex.schema.hasColumn('service_users', 'shoe_size'), false);
      assert.equal((await ok('GET', '/users/me?fields=nickname')).nickname, 'Bea', 'the rest of the table is intact');
      assert.equal(errorCode(await request('GET', '/fields/service_users/shoe_size')), 'FORBIDDEN');
    });

    it('keeps only these fields in snapshots, and a fresh database gets them from one', async () => {
      const snapshot = (await ok('GET', '/schema/snapshot')) as Snapshot;
      assert.ok(!snapshot.collections.some((c) => c.collection.startsWith('service_')));
      const system = snapshot.fields.filter((f) => f.collection.startsWith('service_'));
      assert.deepEqual(system.map((f) => `${f.collection}.${f.field}`).sort(), [
        'service_policies.reviewed',
        'service_roles.department',
        'service_settings.support_email',
        'service_users.nickname',
      ]);
      assert.equal(system.find((f) => f.field === 'nickname')!.meta!.note, 'What friends say');

      const fresh = await startTestApp(client, { fixture: false });
      const freshKnex = knexFor(fresh.testDb);
      try {
        const before = json(await fresh.request({ method: 'GET', url: '/schema/snapshot' })).data as Snapshot;
        assert.deepEqual(
          before.fields.filter((f) => f.collection.startsWith('service_')),
          [],
          'none built in',
        );
        const diff = await fresh.request({ method: 'POST', url: '/schema/diff', payload: snapshot });
        assert.equal(diff.statusCode, 200, diff.body);
        const applied = await fresh.request({ method: 'POST', url: '/schema/apply', payload: json(diff).data });
        assert.equal(applied.statusCode, 204, applied.body);
        assert.ok(await freshKnex.schema.hasColumn('service_users', 'nickname'));
        const patched = await fresh.request({ method: 'PATCH', url: '/users/me', payload: { nickname: 'Dee' } });
        assert.equal(patched.statusCode, 200, patched.body);
        const me = await fresh.request({ method: 'GET', url: '/users/me?fields=nickname' });
        assert.equal(json(me).data.nickname, 'Dee');
        const again = await fresh.request({ method: 'POST', url: '/schema/diff', payload: snapshot });
        assert.equal(again.statusCode, 204, again.body);
        // A snapshot without them removes them again, and leaves the built-in fields alone.
        const without = { ...snapshot, fields: snapshot.fields.filter((f) => !f.collection.startsWith('service_')) };
        const back = await fresh.request({ method: 'POST', url: '/schema/diff', payload: without });
        assert.equal(back.statusCode, 200, back.body);
        const undone = await fresh.request({ method: 'POST', url: '/schema/apply', payload: json(back).data });
        assert.equal(undone.statusCode, 204, undone.body);
        assert.equal(await freshKnex.schema.hasColumn('service_users', 'nickname'), false);
        assert.ok(await freshKnex.schema.hasColumn('service_users', 'email'));
        const login = await fresh.request({
          method: 'POST',
          url: '/auth/login',
          payload: { email: ADMIN.email, password: ADMIN.password },
          token: null,
        });
        assert.equal(login.statusCode, 200, login.body);
      } finally {
        await freshKnex.destroy();
        await fresh.close();
      }
    });
  });
}
