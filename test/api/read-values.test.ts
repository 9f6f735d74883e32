/**
 * Wire values of every column type, read through ItemsService on every database this run can reach: the same table
 * (created per dialect, SQLite holding some dates as epoch milliseconds) must give the same JSON everywhere, and the
 * same filters and sorts must pick the same rows.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DbClient } from '../../src/config/config.js';
import { queryBuilder, Database } from '../../src/db/connection.js';
import { runMigrations } from '../../src/db/migrations/run-migrations.js';
import { parseQuery } from '../../src/request/parse-query.js';
import { SchemaStore } from '../../src/schema/schema-store.js';
import { dataBody } from '../../src/http/data-reply.js';
import { AccessResolver } from '../../src/permissions/access-resolver.js';
import { PermissionStore } from '../../src/permissions/permission-store.js';
import { ItemsService } from '../../src/engine/read/items-service.js';
import { ADMIN_ACCOUNTABILITY } from '../helpers/small-schema.js';
import { clientLabel, nullsSortLargest, createTestDatabase, testClients, type TestDb } from '../helpers/test-db.js';
import { thrownCode } from '../helpers/thrown.js';

const COLUMNS = 'id, i, big, f, dbl, dec, b, s, t, u, j, csv, h, c, d, tm, dt, ts, cb';

const TABLE: Record<DbClient, string> = {
  pg: `create table samples (id integer primary key, i integer, big bigint, f real, dbl double precision,
    dec numeric(10,2), b boolean, s varchar(50), t text, u uuid, j jsonb, csv varchar(100), h varchar(255),
    c varchar(50), d date, tm time, dt timestamp without time zone, ts timestamp with time zone, cb varchar(5))`,
  mysql: `create table samples (id int primary key, i int, big bigint, f float, dbl double, \`dec\` decimal(10,2),
    b tinyint(1), s varchar(50), t text, u char(36), j json, csv varchar(100), h varchar(255), c varchar(50), d date,
    tm time, dt datetime, ts timestamp(3) null default null, cb varchar(5)) default charset=utf8mb4`,
  sqlite3: `create table samples (id integer primary key, i integer, big bigint, f real, dbl double, dec decimal(10,2),
    b boolean, s varchar(50), t text, u char(36), j json, csv varchar(100), h varchar(255), c varchar(50), d date,
    tm time, dt datetime, ts timestamp, cb varchar(5))`,
};

/** Row values as SQL literals. Row 3 holds SQLite's dates as epoch milliseconds, row 4 its timestamp with T and Z. */
function rows(client: DbClient): string[] {
  const bool = (v: boolean) => (client === 'pg' ? String(v) : v ? '1' : '0');
  const epoch = client === 'sqlite3';
  const backslash = client === 'mysql' ? '\\\\' : '\\';
  return [
    `1, 42, 9007199254740993, 1.5, 0.1, 12.5, ${bool(true)}, 'Ünïcode "q" ${backslash} , 50%', 'line
break', '8F14E45F-CEEA-467F-A0E6-6F5F5E5D9C1A', '{"a":[1,2,{"b":null}],"s":"x"}', 'a,b,c',
     '$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA', 'secret', '2024-02-29', '13:45:07', '2024-02-29 13:45:07',
     '2024-02-29 13:45:07.250${client === 'pg' ? '+00' : ''}', 'true'`,
    `2, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null`,
    `3, -7, -1, -0.25, 2.5, -0.5, ${bool(false)}, '', '', 'c9f0f895-fb98-4b91-8f6e-2a4f0a7e1b2c', '"just a string"', '',
     '', '', ${epoch ? '946598400000' : `'1999-12-31'`}, '00:00:00', ${epoch ? '946684799000' : `'1999-12-31 23:59:59'`},
     ${epoch ? '946684799999' : `'1999-12-31 23:59:59.999${client === 'pg' ? '+00' : ''}'`}, '0'`,
    `4, 0, 0, 0, 0, 100, ${bool(true)}, 'single', 'x', '45c48cce-2e2d-4fbd-a8f1-3c4d5e6f7a8b', '[1,2,3]', 'only', null,
     null, '2000-01-01', '23:59:59', '2000-01-01 00:00:00',
     ${epoch ? `'2000-01-01T00:00:00.000Z'` : `'2000-01-01 00:00:00${client === 'pg' ? '+00' : ''}'`}, '1'`,
  ];
}

const SPECIALS: [string, string][] = [
  ['u', 'uuid'],
  ['csv', 'cast-csv'],
  ['h', 'hash'],
  ['c', 'conceal'],
  ['cb', 'cast-boolean'],
];

const ROW_1 = {
  id: 1,
  i: 42,
  big: '9007199254740993',
  f: 1.5,
  dbl: 0.1,
  dec: '12.50',
  b: true,
  s: 'Ünïcode "q" \\ , 50%',
  t: 'line\nbreak',
  u: '8f14e45f-ceea-467f-a0e6-6f5f5e5d9c1a',
  j: { a: [1, 2, { b: null }], s: 'x' },
  csv: ['a', 'b', 'c'],
  h: '**********',
  c: '**********',
  d: '2024-02-29',
  tm: '13:45:07',
  dt: '2024-02-29T13:45:07',
  ts: '2024-02-29T13:45:07.250Z',
  cb: true,
};
const ROW_2 = Object.fromEntries(Object.keys(ROW_1).map((k) => [k, k === 'id' ? 2 : null]));
const ROW_3 = {
  id: 3,
  i: -7,
  big: '-1',
  f: -0.25,
  dbl: 2.5,
  dec: '-0.50',
  b: false,
  s: '',
  t: '',
  u: 'c9f0f895-fb98-4b91-8f6e-2a4f0a7e1b2c',
  j: 'just a string',
  csv: [],
  h: '**********',
  c: '**********',
  d: '1999-12-31',
  tm: '00:00:00',
  dt: '1999-12-31T23:59:59',
  ts: '1999-12-31T23:59:59.999Z',
  cb: false,
};
const ROW_4 = {
  id: 4,
  i: 0,
  big: '0',
  f: 0,
  dbl: 0,
  dec: '100.00',
  b: true,
  s: 'single',
  t: 'x',
  u: '45c48cce-2e2d-4fbd-a8f1-3c4d5e6f7a8b',
  j: [1, 2, 3],
  csv: ['only'],
  h: null,
  c: null,
  d: '2000-01-01',
  tm: '23:59:59',
  dt: '2000-01-01T00:00:00',
  ts: '2000-01-01T00:00:00.000Z',
  cb: true,
};

/** [query string parameters, ids in response order]. */
/** The request, its ids, and where they differ, the ids where NULL sorts as the largest value (PostgreSQL). */
const SELECTIONS: [Record<string, unknown>, number[], number[]?][] = [
  [{ filter: { b: { _eq: true } } }, [1, 4]],
  [{ filter: { b: { _eq: 'false' } } }, [3]],
  [{ filter: { d: { _gte: '2000-01-01' } } }, [1, 4]],
  [{ filter: { d: { _lt: '2000-01-01' } } }, [3]],
  [{ filter: { dt: { _between: ['1999-12-31T23:59:59', '2000-01-01 00:00:00'] } } }, [3, 4]],
  [{ filter: { ts: { _gt: '1999-12-31T23:59:59.998Z' } } }, [1, 3, 4]],
  [{ filter: { ts: { _lte: '2000-01-01T00:00:00Z' } } }, [3, 4]],
  [{ filter: { ts: { _eq: '2024-02-29T14:45:07.250+01:00' } } }, [1]],
  [{ filter: { tm: { _gte: '13:00' } } }, [1, 4]],
  [{ filter: { u: { _eq: 'C9F0F895-FB98-4B91-8F6E-2A4F0A7E1B2C' } } }, [3]],
  [{ filter: { s: { _contains: '50%' } } }, [1]],
  [{ filter: { s: { _contains: '%' }, i: { _neq: 42 } } }, []],
  [{ filter: { s: { _icontains: 'CODE "Q"' } } }, [1]],
  [{ filter: { s: { _starts_with: 'sin' } } }, [4]],
  [{ filter: { s: { _nends_with: 'gle' } } }, [1, 3]],
  [{ filter: { s: { _empty: true } } }, [2, 3]],
  [{ filter: { s: { _nempty: true } } }, [1, 4]],
  [{ filter: { dec: { _gt: '12.49' } } }, [1, 4]],
  [{ filter: { big: { _eq: '9007199254740993' } } }, [1]],
  [{ filter: { i: { _in: [42, '-7'] } } }, [1, 3]],
  [{ filter: { i: { _nin: [42] } } }, [3, 4]],
  [{ filter: { i: { _neq: 42 } } }, [3, 4]],
  [{ filter: { i: { _null: true } } }, [2]],
  [{ filter: { i: { _nnull: 'false' } } }, [2]],
  [{ filter: { f: { _lt: 0 } } }, [3]],
  [{ filter: { dbl: { _nbetween: [0.05, 1] } } }, [3, 4]],
  [{ filter: { _or: [{ i: { _eq: 42 } }, { d: { _lt: '2000-01-01' } }] } }, [1, 3]],
  [{ filter: { j: { _null: false } }, sort: '-id' }, [4, 3, 1]],
  [{ search: 'single' }, [4]],
  [{ search: '42' }, [1]],
  [{ search: 'C9F0F895-FB98-4B91-8F6E-2A4F0A7E1B2C' }, [3]],
  [{ search: 'nothing like this' }, []],
  [{ sort: '-ts' }, [1, 4, 3, 2], [2, 1, 4, 3]],
  [{ sort: 'ts' }, [2, 3, 4, 1], [3, 4, 1, 2]],
  [{ sort: 'd,-id' }, [2, 3, 4, 1], [3, 4, 1, 2]],
  [{ sort: '-b,id' }, [1, 4, 3, 2], [2, 1, 4, 3]],
  [{ sort: '-id', limit: 2, page: 2 }, [2, 1]],
  [{ limit: 1, offset: 2 }, [3]],
];

for (const client of testClients()) {
  describe(`read values (${clientLabel(client)})`, () => {
    let testDb: TestDb;
    let db: Database;
    let service: ItemsService;

    before(async () => {
      testDb = await createTestDatabase(client);
      db = new Database(testDb.config);
      await runMigrations(db);
      await queryBuilder(db).raw(TABLE[client]);
      const columns = client === 'mysql' ? COLUMNS.replace('dec', '`dec`') : COLUMNS;
      for (const row of rows(client)) await queryBuilder(db).raw(`insert into samples (${columns}) values (${row})`);
      for (const [field, special] of SPECIALS)
        await queryBuilder(db)('service_fields').insert({ collection: 'samples', field, special });
      const store = new SchemaStore(db);
      await store.load();
      service = new ItemsService({
        db,
        schema: () => store.current,
        access: new AccessResolver({ db, permissions: new PermissionStore(db) }),
        queryLimitDefault: 100,
      });
    });

    after(async () => {
      await db?.close();
      await testDb?.drop();
    });

    const read = async (raw: Record<string, unknown>) =>
      JSON.parse(
        dataBody(
          await service.readMany(
            'samples',
            parseQuery(raw, { queryLimitMax: -1, maxRelationalDepth: 10 }),
            ADMIN_ACCOUNTABILITY,
          ),
        ),
      );

    it('formats every type the same way', async () => {
      assert.deepEqual(await read({}), { data: [ROW_1, ROW_2, ROW_3, ROW_4] });
    });

    it('reads one item by key, and refuses missing keys and keys of the wrong type', async () => {
      const one = await service.readOne('samples', '4', {}, ADMIN_ACCOUNTABILITY);
      assert.deepEqual(JSON.parse(one.json), ROW_4);
      const partial = await service.readOne('samples', '1', { fields: ['ts', 'id'] }, ADMIN_ACCOUNTABILITY);
      assert.ok(partial.json.startsWith('{'), partial.json);
      assert.deepEqual(Object.entries(JSON.parse(partial.json)), [
        ['ts', ROW_1.ts],
        ['id', 1],
      ]);
      for (const key of ['999', 'abc', '1.5']) {
        await assert.rejects(
          service.readOne('samples', key, {}, ADMIN_ACCOUNTABILITY),
          (e: { code?: string }) => e.code === 'FORBIDDEN',
          key,
        );
      }
    });

    for (const [raw, ids, nullsLargestIds] of SELECTIONS) {
      it(`selects ${JSON.stringify(raw)}`, async () => {
        const body = await read({ ...raw, fields: 'id' });
        assert.deepEqual(
          body.data.map((row: { id: number }) => row.id),
          nullsSortLargest(client) && nullsLargestIds ? nullsLargestIds : ids,
        );
      });
    }

    it('counts all rows and filtered rows regardless of limit', async () => {
      const body = await read({ filter: { b: { _eq: true } }, limit: 1, meta: '*', fields: 'id' });
      assert.deepEqual(body, { data: [{ id: 1 }], meta: { total_count: 4, filter_count: 2 } });
    });

    it('refuses values that cannot be compared with the field', async () => {
      // A malformed uuid is no error: it matches nothing (test/api/compat-reads-payloads.test.ts).
      for (const filter of [{ d: { _gt: '2024-02-30' } }, { i: { _eq: 'x' } }, { b: { _eq: 'yes' } }]) {
        const code = await read({ filter }).then(
          () => 'OK',
          (e: { code?: string }) => e.code,
        );
        assert.equal(code, 'INVALID_QUERY', JSON.stringify(filter));
      }
      assert.equal(
        thrownCode(() => parseQuery({ filter: { i: { _in: '' } } }, { queryLimitMax: -1, maxRelationalDepth: 10 })),
        'INVALID_QUERY',
      );
    });
  });
}
