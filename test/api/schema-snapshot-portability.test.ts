/**
 * Schema snapshots that travel: a snapshot of a PostgreSQL schema made in plain SQL applies to a fresh database
 * (function defaults kept, views left out); a cross-vendor apply settles (a second diff finds nothing); columns are
 * created in the snapshot's order, keys first; timestamp defaults a database exports apply to it again; YAML
 * quotes date-like strings; a snapshot that drops every collection applies; a stale diff gets Directus's message.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import type { DbClient } from '../../src/config/config.js';
import { clientLabel, knexFor, testClients } from '../helpers/test-db.js';
import { errorCode, json, startTestApp, type TestApp } from '../helpers/test-app.js';
import { cliInProcess } from '../cli/cli-in-process.js';

const clients = testClients();

async function ok(t: TestApp, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) {
  const res = await t.request({ method, url, ...(payload === undefined ? {} : { payload: payload as object }) });
  assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.body ? json(res).data : undefined;
}

const snapshotOf = (t: TestApp) => ok(t, 'GET', '/schema/snapshot');

/** Diffs `snapshot` on `target`, applies the diff, and answers the status of a second diff (204: nothing left). */
async function applyThenDiffAgain(target: TestApp, snapshot: unknown): Promise<string> {
  const diff = await target.request({ method: 'POST', url: '/schema/diff?force=true', payload: snapshot as object });
  assert.equal(diff.statusCode, 200, diff.body);
  const applied = await target.request({ method: 'POST', url: '/schema/apply', payload: json(diff).data });
  assert.equal(applied.statusCode, 204, applied.body);
  const again = await target.request({ method: 'POST', url: '/schema/diff?force=true', payload: snapshot as object });
  return again.statusCode === 204 ? 'settled' : again.body;
}

describe(
  'a snapshot of a PostgreSQL schema made in plain SQL',
  { skip: clients.includes('pg') ? false : 'TEST_PG_URL is not set' },
  () => {
    let source: TestApp;
    let target: TestApp;
    before(async () => {
      source = await startTestApp('pg', { fixture: false });
      target = await startTestApp('pg', { fixture: false });
      const knex = knexFor(source.testDb);
      try {
        await knex.raw(`create table things (
          id uuid primary key default gen_random_uuid(),
          name text not null default 'x',
          created_at timestamptz default now(),
          changed_at timestamp default CURRENT_TIMESTAMP,
          day date default CURRENT_DATE,
          since date default now(),
          position serial,
          fixed timestamptz default '2024-01-02 03:04:05+00')`);
        await knex.raw(
          `create table parts (id serial primary key, thing uuid references things (id) on delete cascade)`,
        );
        await knex.raw(`create view thing_names as select id, name from things`);
      } finally {
        await knex.destroy();
      }
      await ok(source, 'POST', '/utils/cache/clear');
    });
    after(async () => {
      await source?.close();
      await target?.close();
    });

    it('applies to a fresh database: function defaults kept, views not created as tables', async () => {
      const snapshot = await snapshotOf(source);
      assert.deepEqual(
        snapshot.collections.map((c: any) => c.collection),
        ['parts', 'things'],
        'a view is no collection of a snapshot',
      );
      assert.equal(await applyThenDiffAgain(target, snapshot), 'settled');
      const knex = knexFor(target.testDb);
      try {
        const columns = await knex('information_schema.columns')
          .where({ table_schema: 'public', table_name: 'things' })
          .select('column_name', 'column_default');
        const defaults = Object.fromEntries(columns.map((c: any) => [c.column_name, c.column_default]));
        assert.match(defaults.id, /^gen_random_uuid\(\)$/);
        assert.match(defaults.created_at, /^(now\(\)|CURRENT_TIMESTAMP)$/);
        assert.match(defaults.changed_at, /^(now\(\)|CURRENT_TIMESTAMP)$/);
        assert.match(defaults.day, /^CURRENT_DATE$/);
        assert.match(defaults.since, /^CURRENT_DATE$/);
        assert.match(defaults.position, /^nextval\(/, 'a serial that is no key stays a serial');
        const views = await knex('information_schema.tables').where({
          table_schema: 'public',
          table_name: 'thing_names',
        });
        assert.deepEqual(views, []);
      } finally {
        await knex.destroy();
      }
      const created = await ok(target, 'POST', '/items/things', { name: 'first' });
      assert.match(created.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.match(created.day, /^\d{4}-\d{2}-\d{2}$/);
      assert.equal(created.position, 1);
      assert.equal(new Date(created.fixed).toISOString(), '2024-01-02T03:04:05.000Z');
    });

    for (const client of clients.filter((c) => c !== 'pg')) {
      it(`applies to ${clientLabel(client)} with the same defaults: a new row gets a uuid and today's date`, async () => {
        const other = await startTestApp(client, { fixture: false });
        try {
          const snapshot = await snapshotOf(source);
          // Only PostgreSQL auto-increments a column that is no key: elsewhere the apply says so, and does nothing.
          const diff = await ok(other, 'POST', '/schema/diff?force=true', snapshot);
          const refused = await other.request({ method: 'POST', url: '/schema/apply', payload: diff });
          assert.equal(errorCode(refused), 'INVALID_PAYLOAD');
          assert.match(json(refused).errors[0].message, /"position": only an integer or bigInteger primary key/);
          snapshot.fields = snapshot.fields.filter((f: any) => f.field !== 'position');
          assert.equal(await applyThenDiffAgain(other, snapshot), 'settled');
          const fields = await ok(other, 'GET', '/fields/things');
          const defaults = Object.fromEntries(fields.map((f: any) => [f.field, f.schema.default_value]));
          assert.equal(defaults.id, 'gen_random_uuid()');
          assert.equal(defaults.day, 'CURRENT_DATE');
          assert.equal(defaults.created_at, 'CURRENT_TIMESTAMP');
          const [a, b] = [await ok(other, 'POST', '/items/things', {}), await ok(other, 'POST', '/items/things', {})];
          assert.match(a.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
          assert.notEqual(a.id, b.id);
          assert.match(a.day, /^\d{4}-\d{2}-\d{2}$/);
          assert.equal(a.name, 'x');
        } finally {
          await other.close();
        }
      });
    }
  },
);

/** owners (uuid key) ← pets.owner (uuid m2o; its o2m "pets" named by the relation only), with clock defaults. */
async function petsSchema(t: TestApp): Promise<void> {
  await ok(t, 'POST', '/collections', {
    collection: 'owners',
    fields: [
      { field: 'id', type: 'uuid', schema: { is_primary_key: true }, meta: { special: ['uuid'] } },
      { field: 'name', type: 'string' },
    ],
  });
  await ok(t, 'POST', '/collections', {
    collection: 'pets',
    fields: [
      { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
      { field: 'owner', type: 'uuid' },
      { field: 'tag', type: 'uuid', schema: { default_value: '6f1c1c4e-2f7a-4c7e-9d1e-1b2c3d4e5f60' } },
      { field: 'born', type: 'timestamp', schema: { default_value: 'CURRENT_TIMESTAMP' } },
      { field: 'fixed', type: 'timestamp', schema: { default_value: '2024-01-02T03:04:05Z' } },
      { field: 'seen', type: 'dateTime', schema: { default_value: '2024-01-02T03:04:05' } },
    ],
  });
  await ok(t, 'POST', '/relations', {
    collection: 'pets',
    field: 'owner',
    related_collection: 'owners',
    meta: { one_field: 'pets' },
  });
}

describe('a cross-vendor apply settles', () => {
  const others: DbClient[] = clients.length > 1 ? clients.filter((c) => c !== 'sqlite3') : ['sqlite3'];
  let source: TestApp;
  before(async () => {
    source = await startTestApp('sqlite3', { fixture: false });
    await petsSchema(source);
  });
  after(async () => {
    await source?.close();
  });

  for (const client of others) {
    it(`sqlite → ${clientLabel(client)} → sqlite: a second diff finds nothing`, async () => {
      const target = await startTestApp(client, { fixture: false });
      const back = await startTestApp('sqlite3', { fixture: false });
      try {
        const snapshot = await snapshotOf(source);
        assert.equal(await applyThenDiffAgain(target, snapshot), 'settled', `sqlite → ${clientLabel(client)}`);
        assert.equal(await applyThenDiffAgain(back, await snapshotOf(target)), 'settled', `→ sqlite`);
        // The o2m field without metadata stays without, as on the source.
        assert.equal((await ok(target, 'GET', '/fields/owners/pets')).meta, null);
      } finally {
        await target.close();
        await back.close();
      }
    });
  }
});

for (const client of clients) {
  it(`an o2m field without metadata goes with its relation's one_field (${clientLabel(client)})`, async () => {
    const t = await startTestApp(client, { fixture: false });
    try {
      await petsSchema(t);
      const snapshot = await snapshotOf(t);
      snapshot.fields = snapshot.fields.filter((f: any) => !(f.collection === 'owners' && f.field === 'pets'));
      snapshot.relations.find((r: any) => r.field === 'owner').meta.one_field = null;
      assert.equal(await applyThenDiffAgain(t, snapshot), 'settled');
      assert.equal((await t.request({ method: 'GET', url: '/fields/owners/pets' })).statusCode, 403);
    } finally {
      await t.close();
    }
  });
}

for (const client of clients) {
  describe(`snapshot column order and timestamp defaults (${clientLabel(client)})`, () => {
    let source: TestApp;
    before(async () => {
      source = await startTestApp(client, { fixture: false });
    });
    after(async () => {
      await source?.close();
    });

    it('creates columns in the snapshot order, keys first', async () => {
      await ok(source, 'POST', '/collections', {
        collection: 'ordered',
        fields: [
          { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
          { field: 'zeta', type: 'string' },
          { field: 'alpha', type: 'integer' },
          { field: 'middle', type: 'text' },
        ],
      });
      const snapshot = await snapshotOf(source);
      const names = (s: any) => s.fields.filter((f: any) => f.collection === 'ordered').map((f: any) => f.field);
      assert.deepEqual(names(snapshot), ['id', 'zeta', 'alpha', 'middle'], 'a snapshot lists fields in column order');
      // A snapshot written with its key last: the key still comes first.
      const keyLast = {
        ...snapshot,
        fields: [
          ...snapshot.fields.filter((f: any) => f.field !== 'id'),
          ...snapshot.fields.filter((f: any) => f.field === 'id'),
        ],
      };
      for (const [wanted, columns] of [
        [snapshot, ['id', 'zeta', 'alpha', 'middle']],
        [keyLast, ['id', 'zeta', 'alpha', 'middle']],
      ] as const) {
        const target = await startTestApp(client, { fixture: false });
        try {
          assert.equal(await applyThenDiffAgain(target, wanted), 'settled');
          const knex = knexFor(target.testDb);
          try {
            const info = await knex('ordered').columnInfo();
            assert.deepEqual(Object.keys(info), columns);
          } finally {
            await knex.destroy();
          }
        } finally {
          await target.close();
        }
      }
      await ok(source, 'DELETE', '/collections/ordered');
    });

    it('timestamp defaults it exports apply to it again', async () => {
      await ok(source, 'POST', '/collections', {
        collection: 'clocks',
        fields: [
          { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
          { field: 'stamped', type: 'timestamp', schema: { default_value: 'CURRENT_TIMESTAMP' } },
          { field: 'fixed', type: 'timestamp', schema: { default_value: '2024-01-02T03:04:05Z' } },
          { field: 'local', type: 'dateTime', schema: { default_value: 'CURRENT_TIMESTAMP' } },
          { field: 'noon', type: 'dateTime', schema: { default_value: '2024-01-02T12:00:00' } },
        ],
      });
      const knex = knexFor(source.testDb);
      try {
        await knex.raw(PLAIN_CLOCKS[client]);
      } finally {
        await knex.destroy();
      }
      await ok(source, 'POST', '/utils/cache/clear');
      const target = await startTestApp(client, { fixture: false });
      try {
        const snapshot = await snapshotOf(source);
        assert.equal(await applyThenDiffAgain(target, snapshot), 'settled');
        const row = await ok(target, 'POST', '/items/clocks', {});
        assert.equal(new Date(row.fixed).toISOString(), '2024-01-02T03:04:05.000Z');
        assert.match(row.noon, /^2024-01-02T12:00:00/);
        assert.match(row.stamped, /^\d{4}-\d{2}-\d{2}T/);
      } finally {
        await target.close();
      }
    });
  });
}

/** A table of clock defaults as each database spells them when made in plain SQL. */
const PLAIN_CLOCKS: Record<DbClient, string> = {
  pg: `create table plain_clocks (id serial primary key, a timestamptz default '2024-01-02 03:04:05+00',
    b timestamp(3) default now(), c timestamptz default CURRENT_TIMESTAMP(3), d timestamp default localtimestamp,
    e timestamp default '2024-01-02 03:04:05')`,
  mysql: `create table plain_clocks (id int auto_increment primary key, a datetime(3) default current_timestamp(3),
    b timestamp not null default current_timestamp on update current_timestamp,
    c datetime default '2024-01-02 03:04:05', d timestamp(6) null default '2024-01-02 03:04:05.123456')`,
  sqlite3: `create table plain_clocks (id integer primary key autoincrement, a datetime default current_timestamp,
    b timestamp default (datetime('now')), c datetime default '2024-01-02 03:04:05',
    d timestamp default '2024-01-02T03:04:05.000Z')`,
};

describe('YAML quotes date-like strings', () => {
  let t: TestApp;
  let dir: string;
  // A YAML 1.1 reader (js-yaml's default, Directus's CLI) reads an unquoted 2024-01-02 as a date.
  const readAsYaml11 = (text: string) => parseYaml(text, { customTags: ['timestamp'] });
  before(async () => {
    t = await startTestApp('sqlite3', { fixture: false });
    dir = mkdtempSync(path.join(tmpdir(), 'strata-yaml-'));
    await ok(t, 'POST', '/collections', {
      collection: 'dated',
      fields: [
        { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true } },
        { field: 'day', type: 'date', schema: { default_value: '2024-01-02' }, meta: { note: '2024-01-02 03:04:05' } },
        { field: 'label', type: 'string' },
      ],
    });
    await ok(t, 'POST', '/items/dated', { label: '2024-05-06' });
  });
  after(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('in the API snapshot export and the items export', async () => {
    const snapshot = await snapshotOf(t);
    const yaml = await t.request({ method: 'GET', url: '/schema/snapshot?export=yaml' });
    assert.match(yaml.body, /default_value: ["']2024-01-02["']/);
    assert.deepEqual(readAsYaml11(yaml.body), snapshot);
    const items = await t.request({ method: 'GET', url: '/items/dated?export=yaml&fields=day,label' });
    assert.equal(items.statusCode, 200, items.body);
    assert.deepEqual(readAsYaml11(items.body), [{ day: '2024-01-02', label: '2024-05-06' }]);
  });

  it('in the CLI snapshot', async () => {
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, ...t.testDb.env, LOG_LEVEL: 'silent' };
    const res = await cliInProcess(['schema', 'snapshot', 'snapshot.yaml'], { cwd: dir, env });
    assert.equal(res.status, 0, res.stderr);
    const text = readFileSync(path.join(dir, 'snapshot.yaml'), 'utf8');
    assert.match(text, /note: ["']2024-01-02 03:04:05["']/);
    assert.deepEqual(readAsYaml11(text), await snapshotOf(t));
  });
});

for (const client of clients) {
  describe(`a snapshot that drops every collection (${clientLabel(client)})`, () => {
    let full: TestApp;
    let empty: TestApp;
    before(async () => {
      full = await startTestApp(client, { relations: true });
      empty = await startTestApp(client, { fixture: false });
    });
    after(async () => {
      await full?.close();
      await empty?.close();
    });

    it('applies: collections whose keys point at each other all go', async () => {
      assert.equal(await applyThenDiffAgain(full, await snapshotOf(empty)), 'settled');
      const left = (await ok(full, 'GET', '/collections')).filter((c: any) => !c.collection.startsWith('service_'));
      assert.deepEqual(left, []);
    });
  });
}

describe('a stale diff', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp('sqlite3', { fixture: false });
  });
  after(async () => {
    await t?.close();
  });

  it("is refused with Directus's message", async () => {
    const snapshot = await snapshotOf(t);
    snapshot.collections.push({ collection: 'later', meta: null, schema: null });
    const diff = await ok(t, 'POST', '/schema/diff', snapshot);
    await ok(t, 'POST', '/collections', { collection: 'meanwhile', schema: null });
    const res = await t.request({ method: 'POST', url: '/schema/apply', payload: diff });
    assert.equal(errorCode(res), 'INVALID_PAYLOAD');
    assert.equal(
      json(res).errors[0].message,
      "Invalid payload. Provided hash does not match the current instance's schema hash, indicating the schema has " +
        'changed after this diff was generated. Please generate a new diff and try again.',
    );
  });
});
