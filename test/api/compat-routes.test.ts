/**
 * Directus compatibility: routes clients call. POST /utils/cache/clear (admins; every cache, on every instance),
 * /server/ping as Directus answers it, a malformed login email as 400 INVALID_PAYLOAD, PATCH /collections in
 * batch (array or `{keys, data}`), and the system collections listed with Directus's meta (`system: true`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { ADMIN, errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { queryBuilder } from '../../src/db/connection.js';

for (const client of testClients()) {
  describe(`routes clients call (${clientLabel(client)})`, () => {
    let t: TestApp;
    const send = (method: 'POST' | 'PATCH', url: string, body?: unknown, token?: string | null) =>
      t.request({
        method,
        url,
        ...(body === undefined
          ? {}
          : { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
        token,
      });
    const get = (url: string, token?: string | null) => t.request({ method: 'GET', url, token });

    before(async () => {
      t = await startTestApp(client, { relations: true });
    });
    after(async () => {
      await t?.close();
    });

    it('clears every cache for admins (POST /utils/cache/clear), 403 for everyone else', async () => {
      // A change made behind Strata's back (straight into the database) shows only once the caches are cleared.
      const version = t.context.schema.current.version;
      await queryBuilder(t.context.db)('service_fields').insert({
        collection: 'authors',
        field: 'bio',
        note: 'Written behind Strata',
      });
      await queryBuilder(t.context.db)('service_settings').update({ project_name: 'Renamed behind Strata' });
      await get('/server/info');
      assert.equal(json(await get('/fields/authors/bio')).data.meta, null);
      const cleared = await send('POST', '/utils/cache/clear');
      assert.equal(cleared.statusCode, 200, cleared.body);
      assert.equal(cleared.body, '');
      assert.ok(t.context.schema.current.version > version);
      assert.equal(json(await get('/fields/authors/bio')).data.meta.note, 'Written behind Strata');
      assert.equal(json(await get('/server/info')).data.project.project_name, 'Renamed behind Strata');
      assert.equal((await send('POST', '/utils/cache/clear?system')).statusCode, 200);

      const policy = json(
        await send('POST', '/policies', { name: 'Plain', app_access: true, admin_access: false }),
      ).data;
      const role = json(await send('POST', '/roles', { name: 'Plain', policies: [{ policy: policy.id }] })).data;
      await send('POST', '/users', {
        email: 'plain@example.com',
        password: 'plain-password-1',
        role: role.id,
        token: 'plain-token',
      });
      const refused = await send('POST', '/utils/cache/clear', undefined, 'plain-token');
      assert.equal(refused.statusCode, 403);
      assert.equal(errorCode(refused), 'FORBIDDEN');
      assert.equal((await send('POST', '/utils/cache/clear', undefined, null)).statusCode, 403);
    });

    it('answers /server/ping as Directus does', async () => {
      const res = await get('/server/ping', null);
      assert.equal(res.statusCode, 200);
      assert.equal(res.body, 'pong');
      assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    });

    it('answers a malformed login email with 400 INVALID_PAYLOAD, a wrong password with 401', async () => {
      for (const email of ['not-an-email', 'admin@', '@example.com', 'admin@example']) {
        const res = await send('POST', '/auth/login', { email, password: ADMIN.password }, null);
        assert.equal(res.statusCode, 400, `${email}: ${res.body}`);
        assert.equal(errorCode(res), 'INVALID_PAYLOAD');
      }
      assert.equal(
        errorCode(await send('POST', '/auth/login', { email: 'nobody@example.com', password: 'x' }, null)),
        'INVALID_CREDENTIALS',
      );
      assert.equal(
        (await send('POST', '/auth/login', { email: ADMIN.email, password: ADMIN.password }, null)).statusCode,
        200,
      );
    });

    it('changes the meta of several collections at once (PATCH /collections)', async () => {
      await send('POST', '/collections', { collection: 'shelf', meta: { icon: 'folder' }, schema: null });
      const sorted = await send('PATCH', '/collections', [
        { collection: 'authors', meta: { sort: 2, group: 'shelf' } },
        { collection: 'articles', meta: { sort: 1, group: 'shelf' } },
      ]);
      assert.equal(sorted.statusCode, 200, sorted.body);
      assert.deepEqual(
        json(sorted).data.map((c: { collection: string; meta: { sort: number; group: string } }) => [
          c.collection,
          c.meta.sort,
          c.meta.group,
        ]),
        [
          ['authors', 2, 'shelf'],
          ['articles', 1, 'shelf'],
        ],
      );
      const hidden = await send('PATCH', '/collections', {
        keys: ['authors', 'tags'],
        data: { meta: { hidden: true } },
      });
      assert.equal(hidden.statusCode, 200, hidden.body);
      assert.deepEqual(
        json(hidden).data.map((c: { meta: { hidden: boolean } }) => c.meta.hidden),
        [true, true],
      );
      assert.equal(json(await get('/collections/authors')).data.meta.sort, 2);
      assert.equal(
        (await send('PATCH', '/collections', [{ collection: 'authors', meta: { sort: 3 } }], 'plain-token')).statusCode,
        403,
      );
    });

    it('lists the system collections with Directus meta', async () => {
      const collections = json(await get('/collections')).data as {
        collection: string;
        meta: Record<string, unknown> | null;
        schema: unknown;
      }[];
      const users = collections.find((c) => c.collection === 'service_users')!;
      assert.equal(users.meta!.system, true);
      assert.equal(users.meta!.icon, 'people_alt');
      assert.equal(users.meta!.accountability, 'all');
      assert.deepEqual(users.schema, { name: 'service_users', comment: null });
      for (const c of collections.filter((c) => c.collection.startsWith('service_')))
        assert.equal(c.meta?.system, true, c.collection);
      assert.equal(collections.find((c) => c.collection === 'service_settings')!.meta!.singleton, true);
      assert.equal(collections.find((c) => c.collection === 'authors')!.meta?.system, undefined);
      // Display only: settings are still served as before.
      assert.equal((await get('/settings')).statusCode, 200);
    });
  });
}
