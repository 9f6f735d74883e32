/**
 * POST /utils/cache/clear on one instance clears the caches of the others too (here two instances on one database
 * without Redis, which hear of it through the database's change counters): a change made behind Strata's back is
 * served by both once one of them clears.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  ADMIN,
  json,
  startSecondInstance,
  startTestApp,
  type SecondInstance,
  type TestApp,
} from '../helpers/test-app.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { queryBuilder } from '../../src/db/connection.js';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const client of testClients()) {
  describe(`cache clear reaches every instance (${clientLabel(client)})`, () => {
    let a: TestApp;
    let b: SecondInstance;
    // Both instances look at the change counters every 50 ms: the test waits a few polls, not a default one.
    const poll = { NOTICE_POLL_INTERVAL: '50' };
    before(async () => {
      a = await startTestApp(client, { env: poll });
      b = await startSecondInstance(a, poll);
    });
    after(async () => {
      await b?.close();
      await a?.close();
    });

    it('a change made behind both instances shows on the other one once the first clears its caches', async () => {
      const note = async () =>
        json(
          await b.app.inject({
            method: 'GET',
            url: '/fields/tags/name',
            headers: { authorization: `Bearer ${ADMIN.token}` },
          }),
        ).data.meta?.note ?? null;
      assert.equal(await note(), null);
      await queryBuilder(a.context.db)('service_fields').insert({
        collection: 'tags',
        field: 'name',
        note: 'Set behind Strata',
      });
      // Several polls later: nothing told the instances of it (the counters did not move).
      await wait(200);
      assert.equal(await note(), null, 'no instance knows of it yet');
      assert.equal((await a.request({ method: 'POST', url: '/utils/cache/clear' })).statusCode, 200);
      const started = Date.now();
      while ((await note()) !== 'Set behind Strata') {
        assert.ok(Date.now() - started < 3_000, 'the other instance reloaded within 3 s');
        await wait(50);
      }
    });
  });
}
