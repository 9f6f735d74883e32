/**
 * The audit trail on tables made outside Strata, whose keys have types and collations Strata would not choose:
 * creates, updates (one, many) and deletes through /items record their activity, and their revisions hold the item's
 * data (found by key in the trail's INSERT ... SELECT). On MariaDB a key column in utf8mb4_unicode_ci made every
 * write a 500 ("Illegal mix of collations"), and the plan of that INSERT must read the item table by its PRIMARY key;
 * on PostgreSQL `citext` and `char(n)` keys must match their items (and be looked up through their index).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type pg from 'pg';
import { queryBuilder } from '../../src/db/connection.js';
import type { DbClient } from '../../src/config/config.js';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { json, onEveryWorker, startTestApp, type TestApp } from '../helpers/test-app.js';

interface KeyCase {
  table: string;
  ddl: string[];
  keys: [unknown, unknown, unknown];
  /** The key as the API answers it (bigint keys may come back as strings). */
  wire?: (key: unknown) => unknown;
}

const U = [
  '0b7c1d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e',
  '1c8d2e4f-5a6b-4c7d-9e8f-0a1b2c3d4e5f',
  '2d9e3f5a-6b7c-4d8e-8f9a-1b2c3d4e5f6a',
];

function cases(client: DbClient): KeyCase[] {
  const row = (table: string, key: string, options = '') => [
    `create table ${table} (id ${key} primary key, name varchar(50))${options}`,
  ];
  if (client === 'mysql')
    return [
      {
        table: 'ext_unicode',
        ddl: row('ext_unicode', 'char(36)', ' default charset=utf8mb4 collate=utf8mb4_unicode_ci'),
        keys: [U[0], U[1], U[2]],
      },
      {
        table: 'ext_bin',
        ddl: row('ext_bin', 'varchar(40) character set utf8mb4 collate utf8mb4_bin'),
        keys: ['Key-A', 'key-a', 'KEY-Ä'],
      },
      { table: 'ext_latin', ddl: row('ext_latin', 'varchar(20)', ' default charset=latin1'), keys: ['l1', 'l2', 'l3'] },
      { table: 'ext_int', ddl: row('ext_int', 'int'), keys: [1, 2, 3] },
      {
        table: 'ext_ubig',
        ddl: row('ext_ubig', 'bigint unsigned'),
        keys: ['9223372036854775000', '9007199254740993', '5'],
        wire: String,
      },
    ];
  if (client === 'pg')
    return [
      { table: 'ext_uuid', ddl: row('ext_uuid', 'uuid'), keys: [U[0], U[1], U[2]] },
      { table: 'ext_text', ddl: row('ext_text', 'text'), keys: ['t1', 'T1', 't 3'] },
      {
        table: 'ext_citext',
        ddl: ['create extension if not exists citext', ...row('ext_citext', 'citext')],
        keys: ['c1', 'c2', 'c3'],
      },
      { table: 'ext_char', ddl: row('ext_char', 'char(2)'), keys: ['k1', 'k2', 'k3'] },
      { table: 'ext_bigint', ddl: row('ext_bigint', 'bigint'), keys: ['9007199254740993', '2', '3'], wire: String },
    ];
  return [
    { table: 'ext_text', ddl: row('ext_text', 'text'), keys: ['t1', '2', 't3'] },
    { table: 'ext_integer', ddl: row('ext_integer', 'integer'), keys: [1, 2, 3] },
  ];
}

for (const client of testClients()) {
  describe(`audit trail on tables made outside Strata (${clientLabel(client)})`, () => {
    let t: TestApp;
    const tables = cases(client);

    async function send(method: string, url: string, payload?: unknown): Promise<any> {
      const res = await t.request({ method: method as 'GET', url, payload: payload as object });
      assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
      return res.statusCode === 204 ? null : json(res).data;
    }

    before(async () => {
      t = await startTestApp(client, { fixture: false });
      const db = queryBuilder(t.context.db);
      for (const c of tables) for (const sql of c.ddl) await db.raw(sql);
      if (client === 'mysql')
        await db.raw(
          'create table ext_pair (a varchar(20) collate utf8mb4_unicode_ci, b int, name varchar(50), primary key (a, b)) default charset=utf8mb4',
        );
      await t.reloadSchema();
      for (const c of [...tables.map((c) => c.table), ...(client === 'mysql' ? ['ext_pair'] : [])])
        await send('PATCH', `/collections/${c}`, { meta: { accountability: 'all' } });
    });
    after(async () => {
      await t?.close();
    });

    async function trail(table: string): Promise<{ actions: string[]; revisions: any[] }> {
      const activity = await send(
        'GET',
        `/activity?filter[collection][_eq]=${table}&sort=id&fields=action,item&limit=-1`,
      );
      const revisions = await send(
        'GET',
        `/revisions?filter[collection][_eq]=${table}&sort=id&fields=item,data,delta&limit=-1`,
      );
      return { actions: activity.map((a: any) => `${a.action}:${a.item}`), revisions };
    }

    for (const c of tables)
      it(`${c.table}: create, update one and many, delete, each with its trail`, async () => {
        const wire = c.wire ?? ((key: unknown) => key);
        const [k1, k2, k3] = c.keys;
        await send('POST', `/items/${c.table}`, { id: k1, name: 'one' });
        await send('POST', `/items/${c.table}`, [
          { id: k2, name: 'two' },
          { id: k3, name: 'three' },
        ]);
        await send('PATCH', `/items/${c.table}/${encodeURIComponent(String(k1))}`, { name: 'one!' });
        await send('PATCH', `/items/${c.table}`, { keys: [k2, k3], data: { name: 'many' } });
        await send('DELETE', `/items/${c.table}/${encodeURIComponent(String(k3))}`);
        const { actions, revisions } = await trail(c.table);
        assert.deepEqual(actions, [
          `create:${k1}`,
          `create:${k2}`,
          `create:${k3}`,
          `update:${k1}`,
          `update:${k2}`,
          `update:${k3}`,
          `delete:${k3}`,
        ]);
        // Each revision's data is the item as its write left it, read back by its key in the same statement.
        assert.deepEqual(
          revisions.map((r: any) => (r.data === null ? null : { id: r.data.id, name: r.data.name })),
          [
            { id: wire(k1), name: 'one' },
            { id: wire(k2), name: 'two' },
            { id: wire(k3), name: 'three' },
            { id: wire(k1), name: 'one!' },
            { id: wire(k2), name: 'many' },
            { id: wire(k3), name: 'many' },
          ],
          JSON.stringify(revisions),
        );
        assert.deepEqual(
          revisions.map((r: any) => r.delta.name),
          ['one', 'two', 'three', 'one!', 'many', 'many'],
        );
      });

    if (client !== 'mysql') return;

    it('ext_pair: a composite key with a unicode_ci column records its trail', async () => {
      await send('POST', '/items/ext_pair', [
        { a: 'x', b: 1, name: 'one' },
        { a: 'y', b: 2, name: 'two' },
      ]);
      await send('PATCH', '/items/ext_pair/x,1', { name: 'one!' });
      const { actions, revisions } = await trail('ext_pair');
      assert.equal(actions.length, 3, JSON.stringify(actions));
      assert.deepEqual(
        revisions.map((r: any) => r.data?.name),
        ['one', 'two', 'one!'],
      );
    });

    it("plans the revisions' INSERT ... SELECT with the item table's PRIMARY key", async () => {
      const [rows] = (await explainRevisionInsert(t, client, `/items/ext_unicode/${U[0]}`)) as [
        Record<string, unknown>[],
      ];
      assert.ok(
        rows.some((r) => r.key === 'PRIMARY' && ['eq_ref', 'ref', 'const'].includes(String(r.type))),
        JSON.stringify(rows),
      );
    });
  });

  if (client === 'pg')
    describe(`audit trail key lookups on tables made outside Strata (${clientLabel(client)})`, () => {
      let t: TestApp;
      before(async () => {
        t = await startTestApp(client, { fixture: false });
        const db = queryBuilder(t.context.db);
        await db.raw('create extension if not exists citext');
        for (const [table, type] of [
          ['ext_citext', 'citext'],
          ['ext_char', 'char(5)'],
        ]) {
          await db.raw(`create table ${table} (id ${type} primary key, name varchar(50))`);
          // Enough rows that a sequential scan per revision costs more than an index lookup.
          await db.raw(`insert into ${table} select 'k' || g, 'x' from generate_series(1000, 2999) g`);
          await db.raw(`analyze ${table}`);
        }
        await t.reloadSchema();
      });
      after(async () => {
        await t?.close();
      });

      for (const table of ['ext_citext', 'ext_char'])
        it(`${table}: the revisions' INSERT ... SELECT finds the item through its primary key's index`, async () => {
          const result = (await explainRevisionInsert(t, client, `/items/${table}/k1007`)) as {
            rows: Record<string, string>[];
          };
          const plan = result.rows.map((r) => r['QUERY PLAN']).join('\n');
          assert.match(plan, new RegExp(`Index Scan using ${table}_pkey`), plan);
        });
    });
}

/** The plan of the revisions' INSERT ... SELECT a PATCH of `url` runs. */
async function explainRevisionInsert(t: TestApp, client: DbClient, url: string): Promise<unknown> {
  const statements: { sql: string; params: unknown[] }[] = [];
  // The worker that answers runs it: in pair mode either one's connection.
  const stop = onEveryWorker(t, ({ db }) => db.onQuery((sql, params) => statements.push({ sql, params: [...params] })));
  try {
    const res = await t.request({ method: 'PATCH', url, payload: { name: 'planned' } });
    assert.equal(res.statusCode, 200, res.body);
  } finally {
    stop();
  }
  const insert = statements.find((s) => /insert into [`"]service_revisions[`"]/i.test(s.sql));
  assert.ok(insert, statements.map((s) => s.sql).join('\n'));
  if (client === 'pg')
    return t.context.db.onPooledConnection(false, (raw) =>
      (raw as pg.Client).query(`explain ${insert.sql}`, insert.params),
    );
  // The INSERT as it runs without its SET STATEMENT prefix (EXPLAIN takes the statement alone).
  const sql = insert.sql.replace(/^set statement .*? for /i, '');
  return queryBuilder(t.context.db).raw(`explain ${sql}`, insert.params as never[]);
}
