/**
 * service_presets: Directus's directus_presets — a user's, a role's or everyone's saved view of a collection (its
 * layout, layout query and options, search and filter); a row with a `bookmark` name is a bookmark, one without is the
 * view Studio restores when the collection is opened again. Numbered 0012 (0006 is left to another branch; the
 * runner applies any version it has not recorded, in list order).
 */
import type { Knex } from 'knex';

export const version = '0012';
export const name = 'presets';

export async function up(knex: Knex): Promise<void> {
  // MySQL commits DDL at once: a migration cut short is run again from the top, so the table is made only once.
  if (await knex.schema.hasTable('service_presets')) return;
  await knex.schema.createTable('service_presets', (t) => {
    t.increments('id').primary();
    t.string('bookmark', 255).nullable();
    t.uuid('user').nullable().references('id').inTable('service_users').onDelete('CASCADE');
    t.uuid('role').nullable().references('id').inTable('service_roles').onDelete('CASCADE');
    t.string('collection', 64).nullable();
    t.string('search', 100).nullable();
    t.string('layout', 100).nullable().defaultTo('tabular');
    // JSON text (cast-json), as the other service_* tables keep JSON.
    t.text('layout_query').nullable();
    t.text('layout_options').nullable();
    t.integer('refresh_interval').nullable();
    t.text('filter').nullable();
    t.string('icon', 64).notNullable().defaultTo('bookmark');
    t.string('color', 255).nullable();
    t.index(['collection', 'user'], 'service_presets_collection_user_index');
  });
}
