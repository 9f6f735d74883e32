/**
 * Applies pending migrations in order, each recorded in service_migrations in the same transaction (PostgreSQL and
 * SQLite roll DDL back with it; MySQL commits DDL implicitly, so a failed migration there is re-run from the top).
 */
import { queryBuilder, type Database } from '../connection.js';
import { raised } from '../failure-kind.js';
import { MIGRATIONS, type Migration } from './index.js';

/**
 * `migrations` (every one by default) in list order, each that service_migrations has not recorded: numbers may have
 * gaps, and one that arrives later with a lower number (from another branch) is applied when it arrives.
 */
export async function runMigrations(db: Database, migrations: readonly Migration[] = MIGRATIONS): Promise<string[]> {
  try {
    return await migrate(db, migrations);
  } catch (error) {
    throw raised(db.dialect, error);
  }
}

async function migrate(db: Database, migrations: readonly Migration[]): Promise<string[]> {
  const knex = queryBuilder(db);
  if (!(await knex.schema.hasTable('service_migrations'))) {
    await knex.schema.createTable('service_migrations', (t) => {
      t.string('version', 255).primary();
      t.string('name', 255).notNullable();
      t.timestamp('timestamp', { useTz: true }).defaultTo(knex.fn.now());
    });
  }
  const done = new Set(
    (await knex('service_migrations').select('version')).map((row: { version: string }) => row.version),
  );
  const applied: string[] = [];
  for (const migration of migrations) {
    if (done.has(migration.version)) continue;
    await knex.transaction(async (trx) => {
      await migration.up(trx);
      await trx('service_migrations').insert({ version: migration.version, name: migration.name });
    });
    applied.push(migration.version);
  }
  return applied;
}
