/**
 * service_schema_journal: where DDL does not take part in transactions (MySQL/MariaDB), a schema change notes what
 * would undo the statements it has run, until its metadata commits (src/db/schema-journal.ts). A change cut short
 * (the process killed) is undone from here, under the schema-change lock, at the next start or change.
 */
import type { Knex } from 'knex';

export const version = '0004';
export const name = 'schema journal';

export async function up(knex: Knex): Promise<void> {
  // MySQL commits DDL at once: a migration cut short after this statement is run again from the top.
  if (await knex.schema.hasTable('service_schema_journal')) return;
  await knex.schema.createTable('service_schema_journal', (t) => {
    t.increments('id').primary();
    t.string('change', 255).notNullable();
    // JSON lists of statements ({sql, params}), in the order they were taken: run last first.
    t.text('undo').notNullable();
    t.text('pending').nullable();
    t.timestamp('started', { useTz: true }).defaultTo(knex.fn.now());
  });
}
