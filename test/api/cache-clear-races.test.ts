/**
 * The caches of users and of the settings row are cleared by every change to them; a lookup that was already on its
 * way when a change cleared them read the rows as they were before, so it answers its own request but is not kept
 * (else a suspended user's token, or old settings, would be served for the rest of the cache's few seconds).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { queryBuilder } from '../../src/db/connection.js';
import { createUserWithPolicies } from '../helpers/access-fixture.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientLabel, testClients } from '../helpers/test-db.js';

for (const client of testClients()) {
  describe(`caches cleared while a lookup is on its way (${clientLabel(client)})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(client);
    });
    after(async () => {
      await t?.close();
    });

    it('does not keep a user looked up before the change that cleared the cache', async () => {
      const user = await createUserWithPolicies(t, []);
      const resolver = t.context.accountability;
      const lookup = resolver.resolve(user.token, null);
      resolver.clear();
      assert.equal((await lookup).user, user.id);
      // A change nothing announces: only a lookup from the database sees it.
      await queryBuilder(t.context.db)('service_users').where({ id: user.id }).update({ status: 'suspended' });
      await assert.rejects(resolver.resolve(user.token, null), { code: 'INVALID_CREDENTIALS' });
    });

    it('does not keep public policies read before the change that cleared the cache', async () => {
      const resolver = t.context.accountability;
      const lookup = resolver.resolve(null, null);
      resolver.clear();
      const before = (await lookup).policies;
      await queryBuilder(t.context.db)('service_access').where({ role: null, user: null }).delete();
      assert.notDeepEqual((await resolver.resolve(null, null)).policies, before);
    });

    it('does not keep settings read before the change that cleared them', async () => {
      assert.equal(
        (await t.request({ method: 'PATCH', url: '/settings', payload: { project_name: 'First' } })).statusCode,
        200,
      );
      const settings = t.context.settings;
      const read = settings.projectInfo();
      settings.clear();
      assert.equal((await read).project_name, 'First');
      await queryBuilder(t.context.db)('service_settings').update({ project_name: 'Second' });
      assert.equal((await settings.projectInfo()).project_name, 'Second');
    });
  });
}
