/**
 * Two instances on one database and no Redis, on every database: a permission revoked, a field added and the settings
 * saved through one are honoured by the other within 2 s (it polls the change counters in service_notices). Before,
 * the other kept its cached permissions and schema forever, and its settings for their 5 s.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PUBLIC_POLICY_ID } from '../../src/app/bootstrap.js';
import {
  ADMIN,
  json,
  startSecondInstance,
  startTestApp,
  type SecondInstance,
  type TestApp,
} from '../helpers/test-app.js';
import { clientLabel, testClients } from '../helpers/test-db.js';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it holds; returns the milliseconds it took, or fails after `limitMs`. */
async function within(limitMs: number, check: () => Promise<boolean>, what: string): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < limitMs) {
    if (await check()) return Date.now() - started;
    await wait(50);
  }
  assert.fail(`${what}: not within ${limitMs} ms`);
}

for (const client of testClients()) {
  describe(`instances without Redis (${clientLabel(client)})`, () => {
    let a: TestApp;
    let b: SecondInstance;
    before(async () => {
      a = await startTestApp(client);
      b = await startSecondInstance(a);
    });
    after(async () => {
      await b?.close();
      await a?.close();
    });

    const publicRead = () => b.app.inject({ method: 'GET', url: '/items/tags?fields=name&limit=1' });

    it('a permission granted, then revoked, through one instance is honoured by the other within 2 s', async () => {
      assert.equal((await publicRead()).statusCode, 403, 'nothing granted yet (and now cached by the second instance)');
      const granted = await a.request({
        method: 'POST',
        url: '/permissions',
        payload: { policy: PUBLIC_POLICY_ID, collection: 'tags', action: 'read', fields: ['*'] },
      });
      assert.equal(granted.statusCode, 200, granted.body);
      await within(2_000, async () => (await publicRead()).statusCode === 200, 'grant seen by the other instance');
      const revoked = await a.request({ method: 'DELETE', url: `/permissions/${json(granted).data.id}` });
      assert.equal(revoked.statusCode, 204, revoked.body);
      await within(2_000, async () => (await publicRead()).statusCode === 403, 'revocation seen by the other instance');
    });

    it('a field created through one instance is served by the other within 2 s', async () => {
      const read = () =>
        b.app.inject({
          method: 'GET',
          url: '/items/tags?fields=name,colour&limit=1',
          headers: { authorization: `Bearer ${ADMIN.token}` },
        });
      assert.equal((await read()).statusCode, 403);
      const created = await a.request({
        method: 'POST',
        url: '/fields/tags',
        payload: { field: 'colour', type: 'string' },
      });
      assert.equal(created.statusCode, 200, created.body);
      await within(2_000, async () => (await read()).statusCode === 200, 'new field served by the other instance');
    });

    it('settings saved through one instance are served by the other within 2 s (not after their 5 s in its cache)', async () => {
      const name = async () =>
        json(await b.app.inject({ method: 'GET', url: '/server/info' })).data.project.project_name;
      const before = await name();
      const saved = await a.request({ method: 'PATCH', url: '/settings', payload: { project_name: `${before} too` } });
      assert.equal(saved.statusCode, 200, saved.body);
      await within(2_000, async () => (await name()) === `${before} too`, 'settings seen by the other instance');
    });
  });
}
