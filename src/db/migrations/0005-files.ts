/**
 * service_files and service_folders: the file library, with Directus 11's columns (directus_ → service_). The bytes
 * live in a storage location (src/storage/), named by `filename_disk`; a row describes them.
 */
import type { Knex } from 'knex';

export const version = '0005';
export const name = 'files and folders';

export async function up(knex: Knex): Promise<void> {
  // MySQL commits DDL at once: a migration cut short after a statement is run again from the top.
  if (!(await knex.schema.hasTable('service_folders'))) {
    await knex.schema.createTable('service_folders', (t) => {
      t.uuid('id').primary();
      t.string('name', 255).notNullable();
      t.uuid('parent').references('id').inTable('service_folders');
    });
  }
  if (await knex.schema.hasTable('service_files')) return;
  await knex.schema.createTable('service_files', (t) => {
    t.uuid('id').primary();
    t.string('storage', 255).notNullable();
    t.string('filename_disk', 255);
    t.string('filename_download', 255).notNullable();
    t.string('title', 255);
    t.string('type', 255);
    t.uuid('folder').references('id').inTable('service_folders').onDelete('SET NULL');
    t.uuid('uploaded_by').references('id').inTable('service_users').onDelete('SET NULL');
    t.timestamp('created_on', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.uuid('modified_by').references('id').inTable('service_users').onDelete('SET NULL');
    t.timestamp('modified_on', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.string('charset', 50);
    t.bigInteger('filesize');
    t.integer('width');
    t.integer('height');
    t.integer('duration');
    t.string('embed', 200);
    t.text('description');
    t.text('location');
    t.text('tags');
    t.text('metadata');
    t.integer('focal_point_x');
    t.integer('focal_point_y');
    t.string('tus_id', 64);
    t.text('tus_data');
    t.timestamp('uploaded_on', { useTz: true });
  });
}
