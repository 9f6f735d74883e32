/**
 * Outbox hygiene: delivered rows older than FLOWS_DELIVERY_RETENTION are deleted by a schedule
 * (FLOWS_DELIVERY_PRUNE_SCHEDULE, here every second) once across instances; failed rows stay for a replay.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { until } from '../helpers/flow-receiver.js';
import { json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientLabel, testClients } from '../helpers/test-db.js';

for (const client of testClients()) {
  describe(`flow delivery retention (${clientLabel(client)})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(client, {
        env: {
          FLOWS_DELIVERY_RETENTION: '1s',
          FLOWS_DELIVERY_PRUNE_SCHEDULE: '* * * * * *',
          FLOWS_DELIVERY_ATTEMPTS: '1',
          FLOWS_DELIVERY_POLL: '100',
        },
      });
    });
    after(async () => {
      await t?.close();
    });

    const ok = async (method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown) => {
      const response = await t.request({
        method,
        url,
        ...(body === undefined
          ? {}
          : { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      });
      assert.ok(response.statusCode < 300, `${response.statusCode} ${response.body}`);
      return response.body ? json(response).data : undefined;
    };

    it('deletes delivered rows after the retention and keeps failed ones', async () => {
      const flow = await ok('POST', '/flows', {
        name: 'pruned',
        status: 'active',
        trigger: 'event',
        options: { type: 'action', scope: ['items.create'], collections: ['articles'] },
      });
      // A condition on the title: passes for "keep", fails (no reject) for "fail".
      const step = await ok('POST', '/operations', {
        key: 'check',
        type: 'condition',
        flow: flow.id,
        position_x: 1,
        position_y: 1,
        options: { filter: { $trigger: { payload: { title: { _eq: 'keep' } } } } },
      });
      await ok('PATCH', `/flows/${flow.id}`, { operation: step.id });
      await ok('POST', '/items/articles', [{ title: 'keep' }, { title: 'fail' }]);
      const rows = () => ok('GET', `/flows/deliveries?flow=${flow.id}&limit=100`);
      await until('both outcomes', async () => {
        const statuses = (await rows()).map((d: { status: string }) => d.status).sort();
        return statuses.join() === 'delivered,failed';
      });
      await until('the delivered row pruned', async () => (await rows()).length === 1, 10_000);
      assert.equal((await rows())[0].status, 'failed');
    });
  });
}
