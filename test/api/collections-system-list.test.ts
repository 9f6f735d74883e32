/**
 * /collections lists the system collections as Directus lists its own (issue 30): to admins every one, with Directus's
 * meta (`system: true`) and a table `schema`; to app users those their policies open — app access's own read rules
 * (Directus's app-access minimal permissions: the schema metadata, their activity, their user, roles, settings...)
 * and any explicit read rule on a system collection; never the internal ones no rule opens.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPolicy, createUserWithPolicies } from '../helpers/access-fixture.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientLabel, testClients } from '../helpers/test-db.js';

type CollectionObject = { collection: string; meta: Record<string, unknown> | null; schema: unknown };

/** The system collections Strata holds, named as Directus names its own (directus_* → service_*). */
const SYSTEM = [
  'service_access',
  'service_activity',
  'service_collections',
  'service_fields',
  'service_migrations',
  'service_permissions',
  'service_policies',
  'service_relations',
  'service_revisions',
  'service_roles',
  'service_sessions',
  'service_settings',
  'service_users',
];

/** What Directus's app-access minimal permissions open among them (Directus's own conformance list, renamed). */
const APP_ACCESS = [
  'service_activity',
  'service_collections',
  'service_fields',
  'service_permissions',
  'service_relations',
  'service_roles',
  'service_settings',
  'service_users',
];

for (const client of testClients()) {
  describe(`system collections in /collections (${clientLabel(client)})`, () => {
    let t: TestApp;
    let app: string;
    let revisions: string;
    const list = async (token?: string | null) => {
      const response = await t.request({ method: 'GET', url: '/collections', token });
      assert.equal(response.statusCode, 200, response.body);
      return json<{ data: CollectionObject[] }>(response).data;
    };
    const gqlList = async (token?: string | null) => {
      const response = await t.request({
        method: 'POST',
        url: '/graphql/system',
        token,
        payload: { query: '{ collections { collection } }' },
      });
      assert.equal(response.statusCode, 200, response.body);
      return json<{ data: { collections: { collection: string }[] } }>(response).data.collections;
    };

    before(async () => {
      t = await startTestApp(client);
      app = (await createUserWithPolicies(t, [await createPolicy(t, { app_access: true, permissions: [] })])).token;
      const explicit = await createPolicy(t, {
        app_access: true,
        permissions: [{ collection: 'service_revisions' }, { collection: 'articles' }],
      });
      revisions = (await createUserWithPolicies(t, [explicit])).token;
    });
    after(async () => {
      await t?.close();
    });

    it('lists every system collection to admins, marked system, with its table', async () => {
      const all = await list();
      const names = all.map((c) => c.collection);
      for (const name of SYSTEM) assert.ok(names.includes(name), name);
      for (const collection of all.filter((c) => c.collection.startsWith('service_'))) {
        assert.equal(collection.meta?.system, true, collection.collection);
        assert.equal(collection.meta?.collection, collection.collection);
        assert.deepEqual(collection.schema, { name: collection.collection, comment: null });
      }
      const users = all.find((c) => c.collection === 'service_users')!;
      assert.equal(users.meta!.archive_field, 'status');
      assert.equal(all.find((c) => c.collection === 'service_settings')!.meta!.singleton, true);
      assert.ok(names.includes('articles'));
      assert.deepEqual((await gqlList()).map((c) => c.collection).sort(), [...names].sort());
    });

    it('answers one system collection by name', async () => {
      const response = await t.request({ method: 'GET', url: '/collections/service_users' });
      assert.equal(response.statusCode, 200);
      const users = json<{ data: CollectionObject }>(response).data;
      assert.equal(users.collection, 'service_users');
      assert.equal(users.meta!.system, true);
      assert.deepEqual(users.schema, { name: 'service_users', comment: null });
    });

    it('lists to an app user the system collections app access opens, and no other', async () => {
      const names = (await list(app)).map((c) => c.collection);
      for (const name of APP_ACCESS) assert.ok(names.includes(name), name);
      for (const name of ['service_sessions', 'service_migrations', 'service_revisions', 'articles'])
        assert.ok(!names.includes(name), name);
      assert.deepEqual((await gqlList(app)).map((c) => c.collection).sort(), [...names].sort());
      const fields = json<{ data: CollectionObject }>(
        await t.request({ method: 'GET', url: '/collections/service_fields', token: app }),
      ).data;
      assert.equal(fields.meta!.system, true);
      assert.equal(
        errorCode(await t.request({ method: 'GET', url: '/collections/service_sessions', token: app })),
        'FORBIDDEN',
      );
    });

    it('adds the system collections a policy opens with a read rule', async () => {
      const names = (await list(revisions)).map((c) => c.collection);
      for (const name of [...APP_ACCESS, 'service_revisions', 'articles']) assert.ok(names.includes(name), name);
      assert.ok(!names.includes('service_sessions'));
    });
  });
}
