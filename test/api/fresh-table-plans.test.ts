/**
 * Plan shapes (not times) of a filter on a two-level m2m path over tables made and filled through the API a moment
 * before, never analysed, as Directus's conformance tests make them: foods m2m ingredients m2m suppliers, read with
 * `fields=*.*.*.*.*`. On every database the seven requests answer the rows the filter names. On PostgreSQL the
 * statement Strata sent, prepared by name on one of Strata's own sessions and run more than five times, is planned
 * (custom plan for its values and generic plan alike) as semi-joins without JIT compilation: the estimates of
 * tables without statistics priced this read above jit_above_cost, and LLVM spent seconds compiling it on every
 * custom-planned run (docs/design/postgres-jit.md).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type pg from 'pg';
import { json, onEveryWorker, startTestApp, type TestApp } from '../helpers/test-app.js';
import { clientLabel, testClients } from '../helpers/test-db.js';

const TYPED_FIELDS: [string, string, unknown[]][] = [
  ['test_integer', 'integer', [1, 2]],
  ['test_string', 'string', ['abc', 'def']],
  ['test_datetime', 'dateTime', ['2022-01-01T10:00:00', '2023-01-01T10:00:00']],
  ['test_json', 'json', [{ a: 1 }, { b: 2 }]],
];
const KEY = { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } };
const enc = (value: unknown): string => encodeURIComponent(JSON.stringify(value));

for (const client of testClients()) {
  describe(`two-level m2m filters on fresh tables (${clientLabel(client)})`, () => {
    let t: TestApp;
    /** The foods reached from the suppliers whose test_integer is 1 and 2, and the statement of each filtered read. */
    let foods: number[];
    const statements: { sql: string; params: unknown[] }[] = [];

    async function send(method: 'POST' | 'GET', url: string, payload?: unknown): Promise<any> {
      const res = await t.request({ method, url, payload: payload as object });
      assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
      return json(res).data;
    }

    async function m2m(one: string, alias: string, other: string, otherAlias: string, junction: string) {
      await send('POST', '/collections', { collection: junction, meta: { hidden: true }, schema: {}, fields: [KEY] });
      await send('POST', `/fields/${one}`, { field: alias, type: 'alias', meta: { special: ['m2m'] }, schema: null });
      await send('POST', `/fields/${other}`, {
        field: otherAlias,
        type: 'alias',
        meta: { special: ['m2m'] },
        schema: null,
      });
      for (const side of [one, other])
        await send('POST', `/fields/${junction}`, { field: `${side}_id`, type: 'integer', meta: {}, schema: {} });
      for (const [side, field, otherSide] of [
        [one, alias, other],
        [other, otherAlias, one],
      ] as const)
        await send('POST', '/relations', {
          collection: junction,
          field: `${side}_id`,
          related_collection: side,
          meta: { one_field: field, junction_field: `${otherSide}_id` },
          schema: { on_delete: 'SET NULL' },
        });
    }

    before(async () => {
      t = await startTestApp(client, {
        fixture: false,
      });
      for (const collection of ['foods', 'ingredients', 'suppliers'])
        await send('POST', '/collections', {
          collection,
          schema: {},
          meta: {},
          fields: [KEY, { field: 'name', type: 'string', schema: {}, meta: {} }],
        });
      await m2m('foods', 'ingredients', 'ingredients', 'foods', 'foods_ingredients');
      await m2m('ingredients', 'suppliers', 'suppliers', 'ingredients', 'ingredients_suppliers');
      const ids: Record<string, number[]> = {};
      for (const collection of ['foods', 'ingredients', 'suppliers']) {
        for (const [field, type] of TYPED_FIELDS)
          await send('POST', `/fields/${collection}`, { field, type, meta: {}, schema: {} });
        const rows = TYPED_FIELDS.flatMap(([field, , values]) => values.map((value) => ({ [field]: value })));
        ids[collection] = (await send('POST', `/items/${collection}`, rows)).map((row: { id: number }) => row.id);
      }
      // Row i of each collection is linked to row i of the next: the suppliers with test_integer 1 and 2 are rows 0, 1.
      await send(
        'POST',
        '/items/foods_ingredients',
        ids.foods!.map((id, i) => ({ foods_id: id, ingredients_id: ids.ingredients![i] })),
      );
      await send(
        'POST',
        '/items/ingredients_suppliers',
        ids.ingredients!.map((id, i) => ({ ingredients_id: id, suppliers_id: ids.suppliers![i] })),
      );
      foods = ids.foods!.slice(0, 2);
    });

    after(() => t?.close());

    it('answers the same filter with seven values: the rows it names, in one statement each', async () => {
      const stop = onEveryWorker(t, ({ db }) =>
        db.onQuery((sql, params) => statements.push({ sql, params: [...params] })),
      );
      try {
        for (let value = 1; value <= 7; value++) {
          const filter = {
            ingredients: { ingredients_id: { suppliers: { suppliers_id: { test_integer: { _eq: value } } } } },
          };
          const rows = await send('GET', `/items/foods?filter=${enc(filter)}&fields=*.*.*.*.*`);
          assert.deepEqual(
            rows.map((row: { id: number }) => row.id),
            value <= 2 ? [foods[value - 1]] : [],
          );
        }
      } finally {
        stop();
      }
      assert.equal(statements.length, 7);
      assert.equal(new Set(statements.map((s) => s.sql)).size, 1, 'one statement text for every value');
    });

    if (client !== 'pg') return;

    it('plans that statement, custom and generic, on a Strata session as semi-joins without JIT', async () => {
      const { sql, params } = statements[0]!;
      assert.ok(
        params.every((p) => typeof p === 'number'),
        'every parameter is a number (written into EXECUTE)',
      );
      // The filter's value (1 in the first request; the others are limits).
      const slot = params.indexOf(1);
      assert.ok(slot >= 0 && params.lastIndexOf(1) === slot, String(params));
      const plans = await t.context.db.onPooledConnection(true, async (raw) => {
        const connection = raw as pg.Client;
        const name = 'fresh_table_plans';
        try {
          // More than five runs, with other values: PostgreSQL then weighs a generic plan against the custom ones.
          for (let value = 1; value <= 6; value++)
            await connection.query({ name, text: sql, values: params.map((p, i) => (i === slot ? value : p)) });
          const explained: string[] = [];
          for (const mode of ['force_custom_plan', 'force_generic_plan']) {
            await connection.query(`set plan_cache_mode = ${mode}`);
            const rows = (await connection.query(`explain execute ${name}(${params.join(', ')})`)).rows;
            explained.push(rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n'));
          }
          return explained;
        } finally {
          await connection.query('reset plan_cache_mode');
          await connection.query(`deallocate ${name}`);
        }
      });
      for (const plan of plans) {
        assert.doesNotMatch(plan, /^JIT:/m, plan);
        // The path's filter is answered by semi-joins (the rows that have a match), not by a join per row.
        assert.match(plan, /Semi Join/, plan);
      }
    });
  });
}
