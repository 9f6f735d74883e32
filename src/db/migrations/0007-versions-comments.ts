/**
 * service_versions (content versions: a named draft of one item, held as a delta over the main item) and
 * service_comments (comments on items). Numbered 0007: 0005 and 0006 belong to other branches; the runner applies
 * any version it has not recorded, in list order, so the gap and a later arrival of the others are both fine.
 */
import type { Knex } from 'knex';

export const version = '0007';
export const name = 'versions and comments';

export async function up(knex: Knex): Promise<void> {
  // MySQL commits DDL at once: a migration cut short is run again from the top, so each table is made only once.
  if (!(await knex.schema.hasTable('service_versions'))) {
    await knex.schema.createTable('service_versions', (t) => {
      t.uuid('id').primary().notNullable();
      t.string('key', 64).notNullable();
      t.string('name', 255).nullable();
      t.string('collection', 64).notNullable();
      t.string('item', 255).notNullable();
      t.string('hash', 255).nullable();
      t.timestamp('date_created', { useTz: true }).defaultTo(knex.fn.now());
      t.timestamp('date_updated', { useTz: true }).nullable();
      t.uuid('user_created').nullable().references('id').inTable('service_users').onDelete('SET NULL');
      t.uuid('user_updated').nullable().references('id').inTable('service_users').onDelete('SET NULL');
      // JSON text of the saved changes (cast-json).
      t.text('delta').nullable();
      t.unique(['collection', 'item', 'key'], { indexName: 'service_versions_collection_item_key_unique' });
    });
  }
  if (!(await knex.schema.hasTable('service_comments'))) {
    await knex.schema.createTable('service_comments', (t) => {
      t.uuid('id').primary().notNullable();
      t.string('collection', 64).notNullable();
      t.string('item', 255).notNullable();
      t.text('comment').notNullable();
      t.timestamp('date_created', { useTz: true }).defaultTo(knex.fn.now());
      t.timestamp('date_updated', { useTz: true }).nullable();
      t.uuid('user_created').nullable().references('id').inTable('service_users').onDelete('SET NULL');
      t.uuid('user_updated').nullable().references('id').inTable('service_users').onDelete('SET NULL');
      t.index(['collection', 'item'], 'service_comments_collection_item_index');
    });
  }
}
