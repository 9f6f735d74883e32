/**
 * A write refused by a CHECK constraint of an existing table answers 400 INVALID_PAYLOAD naming the field the check
 * is on (a column's own check), or the constraint (a check over several columns), on every database — never a raw
 * database message, and not a bare "Invalid value in collection".
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { queryBuilder } from '../../src/db/connection.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';

for (const client of testClients()) {
  describe(`CHECK constraints (${clientLabel(client)})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(client, { fixture: false });
      // A schema made outside Strata: a column's own check, and a named one over two columns.
      await queryBuilder(t.context.db).raw(
        'create table gauges (id integer primary key, label varchar(20), level integer check (level >= 0), ' +
          'low integer, high integer, constraint gauges_range check (low <= high))',
      );
      await t.reloadSchema();
    });
    after(async () => {
      await t?.close();
    });

    const refusal = async (payload: Record<string, unknown>) => {
      const res = await t.request({ method: 'POST', url: '/items/gauges', payload });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(errorCode(res), 'INVALID_PAYLOAD', res.body);
      const [error] = json(res).errors;
      return { message: error.message as string, extensions: error.extensions };
    };

    it("names the field of a column's own check", async () => {
      const { message, extensions } = await refusal({ id: 1, label: 'sub-zero', level: -1, low: 1, high: 2 });
      assert.equal(extensions.collection, 'gauges');
      assert.equal(extensions.field, 'level', message);
      assert.match(message, /field "level"/);
      assert.doesNotMatch(message, /violates|CONSTRAINT|failed for/);
    });

    it('names the constraint of a check over several columns', async () => {
      const { message, extensions } = await refusal({ id: 2, label: 'upside down', level: 1, low: 5, high: 1 });
      assert.equal(extensions.collection, 'gauges');
      assert.equal(extensions.constraint, 'gauges_range', JSON.stringify(extensions));
      assert.match(message, /"gauges_range"/);
    });

    it('an update breaking a check is refused the same way, and a good value passes', async () => {
      const created = await t.request({
        method: 'POST',
        url: '/items/gauges',
        payload: { id: 3, label: 'fine', level: 2, low: 1, high: 2 },
      });
      assert.equal(created.statusCode, 200, created.body);
      const res = await t.request({ method: 'PATCH', url: '/items/gauges/3', payload: { level: -5, label: 'no' } });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(json(res).errors[0].extensions.field, 'level', res.body);
    });
  });
}
