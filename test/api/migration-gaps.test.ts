/**
 * Migration numbers are taken by branches as they start, so the list may have gaps (0007 before 0005 exists), and a
 * migration may arrive later with a lower number than one already applied: the runner applies every migration it has
 * not recorded, in list order, once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { readConfig } from '../../src/config/config.js';
import { Database, queryBuilder } from '../../src/db/connection.js';
import { MIGRATIONS } from '../../src/db/migrations/index.js';
import { runMigrations } from '../../src/db/migrations/run-migrations.js';
import { clientLabel, createTestDatabase, testClients, type TestDb } from '../helpers/test-db.js';

// A migration that lands after a later-numbered one was applied: the one before the newest.
const late = MIGRATIONS[MIGRATIONS.length - 2]!;
const early = MIGRATIONS.filter((m) => m !== late);

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
      assert.deepEqual(
        await runMigrations(db, early),
        early.map((m) => m.version),
      );
      assert.deepEqual(await runMigrations(db), [late.version]);
      assert.deepEqual(await runMigrations(db), []);
      const recorded = await queryBuilder(db)('service_migrations').select('version').orderBy('version');
      assert.deepEqual(
        recorded.map((row: { version: string }) => row.version),
        MIGRATIONS.map((m) => m.version).sort(),
      );
    });
  });
}
