/**
 * Migration numbers are taken by branches as they start, so the list may have gaps (0007 before 0005 exists), and a
 * migration may arrive later with a lower number than one already applied: the runner applies every migration it has
 * not recorded, in list order, once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { readConfig } from '../../src/config/config.js';
import { Database, queryBuilder } from '../../src/db/connection.js';
import { MIGRATIONS, type Migration } from '../../src/db/migrations/index.js';
import { runMigrations } from '../../src/db/migrations/run-migrations.js';
import { clientLabel, createTestDatabase, testClients, type TestDb } from '../helpers/test-db.js';

const lateArrival: Migration = {
  version: '0005',
  name: 'late arrival',
  async up(knex: Knex) {
    await knex.schema.createTable('late_arrival', (t) => {
      t.increments('id');
    });
  },
};

for (const client of testClients()) {
  describe(`migration gaps (${clientLabel(client)})`, () => {
    let testDb: TestDb;
    let db: Database;
    before(async () => {
      testDb = await createTestDatabase(client, { fixture: false });
      db = new Database(readConfig({ ...testDb.env, SECRET: 'migration-gaps-secret-0123456789' }).db);
    });
    after(async () => {
      await db?.close();
      await testDb?.drop();
    });

    it('applies a list with gaps, then a lower-numbered migration that arrives later, each once', async () => {
      const versions = MIGRATIONS.map((m) => m.version);
      assert.ok(!versions.includes('0005') && versions.includes('0007'));
      assert.deepEqual(await runMigrations(db), versions);
      const later = [
        ...MIGRATIONS.filter((m) => m.version < '0005'),
        lateArrival,
        ...MIGRATIONS.filter((m) => m.version > '0005'),
      ];
      assert.deepEqual(await runMigrations(db, later), ['0005']);
      assert.ok(await queryBuilder(db).schema.hasTable('late_arrival'));
      assert.deepEqual(await runMigrations(db, later), []);
      const recorded = await queryBuilder(db)('service_migrations').select('version').orderBy('version');
      assert.deepEqual(
        recorded.map((row: { version: string }) => row.version),
        [...versions, '0005'].sort(),
      );
    });
  });
}
