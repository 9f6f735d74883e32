/**
 * `strata schema apply <file> --dry-run` changes nothing, not even on a database Strata has never been started on:
 * no service_* table is created or migrated, no SQLite file (or data folder) is made; it still prints the changes
 * that applying would make, on every database.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { clientLabel, createTestDatabase, knexFor, testClients, type TestDb } from '../helpers/test-db.js';
import { cliInProcess } from './cli-in-process.js';

/** A snapshot of one collection (vendor-neutral: applied with --force on every database). */
const SNAPSHOT = {
  version: 1,
  directus: '0.1.0',
  vendor: 'sqlite',
  collections: [{ collection: 'dry_things', meta: null, schema: { name: 'dry_things' } }],
  fields: [
    { field: 'id', type: 'integer', key: true, auto: true },
    { field: 'name', type: 'string', key: false, auto: false },
  ].map(({ field, type, key, auto }) => ({
    collection: 'dry_things',
    field,
    type,
    meta: null,
    schema: {
      name: field,
      table: 'dry_things',
      default_value: null,
      max_length: type === 'string' ? 255 : null,
      numeric_precision: null,
      numeric_scale: null,
      is_nullable: !key,
      is_unique: key,
      is_primary_key: key,
      has_auto_increment: auto,
      foreign_key_table: null,
      foreign_key_column: null,
    },
  })),
  relations: [],
};

async function tables(testDb: TestDb): Promise<string[]> {
  const knex = knexFor(testDb);
  try {
    const query =
      testDb.client === 'sqlite3'
        ? "select name from sqlite_master where type = 'table' and name not like 'sqlite_%'"
        : testDb.client === 'pg'
          ? "select table_name as name from information_schema.tables where table_schema = 'public'"
          : 'select table_name as name from information_schema.tables where table_schema = database()';
    const result = await knex.raw(query);
    const rows = (testDb.client === 'sqlite3' ? result : testDb.client === 'pg' ? result.rows : result[0]) as {
      name?: string;
      NAME?: string;
      TABLE_NAME?: string;
    }[];
    return rows.map((row) => row.name ?? row.NAME ?? row.TABLE_NAME ?? '').sort();
  } finally {
    await knex.destroy();
  }
}

for (const client of testClients()) {
  describe(`schema apply --dry-run (${clientLabel(client)})`, () => {
    let dir: string;
    let file: string;
    before(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'strata-dry-run-'));
      file = path.join(dir, 'snapshot.json');
      writeFileSync(file, JSON.stringify(SNAPSHOT));
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    const dryRun = (testDb: TestDb, data: string) =>
      cliInProcess(['schema', 'apply', file, '--dry-run', '--force'], {
        cwd: dir,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, ...testDb.env, DATA_DIR: data, LOG_LEVEL: 'silent' },
      });

    it('on a fresh database: prints the plan, creates and migrates nothing', async () => {
      const testDb = await createTestDatabase(client, { fixture: false });
      const data = path.join(dir, 'fresh-data');
      try {
        const before = client === 'sqlite3' ? null : await tables(testDb);
        const result = await dryRun(testDb, data);
        assert.equal(result.status, 0, result.stderr);
        assert.match(result.stdout, /dry run, nothing applied/);
        assert.match(result.stdout, /create collection "dry_things"/);
        if (client === 'sqlite3') {
          assert.ok(!existsSync(testDb.config.filename), 'no SQLite file is created');
          assert.deepEqual(readdirSync(path.dirname(testDb.config.filename)), [], 'nothing beside it either');
        } else assert.deepEqual(await tables(testDb), before, 'no table is created');
        assert.ok(!existsSync(data), 'no data folder is made');
      } finally {
        await testDb.drop();
      }
    });

    it('on a database with tables of its own but no Strata tables: no service_* table is created', async () => {
      const testDb = await createTestDatabase(client, { fixture: false });
      const data = path.join(dir, 'legacy-data');
      try {
        const knex = knexFor(testDb);
        try {
          await knex.schema.createTable('legacy', (t) => {
            t.increments('id');
            t.string('title');
          });
        } finally {
          await knex.destroy();
        }
        const before = await tables(testDb);
        const result = await dryRun(testDb, data);
        assert.equal(result.status, 0, result.stderr);
        assert.match(result.stdout, /create collection "dry_things"/);
        assert.deepEqual(await tables(testDb), before, 'no table is created');
        assert.ok(!existsSync(data), 'no data folder is made');
      } finally {
        await testDb.drop();
      }
    });
  });
}
