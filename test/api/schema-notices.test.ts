/**
 * Without Redis an instance learns of other instances' schema changes by polling the database's change counters.
 * Its own changes must never look like another's: each would cost a needless reload of the schema, and a reload
 * overlapping the next change's own once left a schema apply without the collection it had just created.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientLabel, testClients } from '../helpers/test-db.js';

for (const client of testClients()) {
  describe(`schema change notices of one instance (${clientLabel(client)})`, () => {
    let t: TestApp;
    before(async () => {
      // Polling all the time, so that a poll lands between a change's counter increment and its noting as own.
      t = await startTestApp(client, {
        env: { NOTICE_POLL_INTERVAL: '1' },
        oneWorker:
          "counts one process's schema loads; polling every 1 ms, a sibling's counter is often read before the relay notes it as the sibling's (one spurious reload, never a stale schema)",
      });
    });
    after(async () => {
      await t?.close();
    });

    it('reloads the schema once per change of its own, never again for its own notice', async () => {
      const loads: number[] = [];
      const stop = t.context.schema.onLoad((overview) => loads.push(overview.version));
      try {
        for (let i = 0; i < 8; i++) {
          const created = await t.request({
            method: 'POST',
            url: '/fields/tags',
            payload: { field: `notice_${i}`, type: 'string' },
          });
          assert.equal(created.statusCode, 200, created.body);
        }
        // Many polls later: still one load per change.
        await new Promise((resolve) => setTimeout(resolve, 100));
        assert.equal(loads.length, 8, `loads: ${loads.join(', ')}`);
      } finally {
        stop();
      }
    });
  });
}
