/**
 * service_notifications: messages to one user (a comment's mention), read and archived through /notifications, as
 * Directus's directus_notifications. Numbered 0009: 0006 and 0008 are left to other branches (the runner applies any
 * version it has not recorded, in list order).
 */
import type { Knex } from 'knex';

export const version = '0009';
export const name = 'notifications';

export async function up(knex: Knex): Promise<void> {
  // MySQL commits DDL at once: a migration cut short is run again from the top, so the table is made only once.
  if (await knex.schema.hasTable('service_notifications')) return;
  await knex.schema.createTable('service_notifications', (t) => {
    t.increments('id').primary();
    t.timestamp('timestamp', { useTz: true }).defaultTo(knex.fn.now());
    t.string('status', 255).defaultTo('inbox');
    t.uuid('recipient').notNullable().references('id').inTable('service_users').onDelete('CASCADE');
    t.uuid('sender').nullable().references('id').inTable('service_users').onDelete('SET NULL');
    t.string('subject', 255).notNullable();
    t.text('message').nullable();
    t.string('collection', 64).nullable();
    t.string('item', 255).nullable();
    t.index(['recipient', 'status'], 'service_notifications_recipient_status_index');
  });
}
