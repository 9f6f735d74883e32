/**
 * Flows (Directus 11's service_flows and service_operations) and the outbox of their deliveries
 * (service_flow_deliveries: one row per event an action flow must hear, written in the changing write's transaction,
 * see docs/design/flows-and-outbox.md). Numbered 0010: 0006 to 0009 may belong to other branches; the runner applies
 * any version it has not recorded, in list order.
 */
import type { Knex } from 'knex';

export const version = '0010';
export const name = 'flows';

export async function up(knex: Knex): Promise<void> {
  // MySQL commits DDL at once: a migration cut short is run again from the top, so each table is made only once.
  if (!(await knex.schema.hasTable('service_flows'))) {
    await knex.schema.createTable('service_flows', (t) => {
      t.uuid('id').primary().notNullable();
      t.string('name', 255).notNullable();
      t.string('icon', 64).nullable();
      t.string('color', 255).nullable();
      t.text('description').nullable();
      t.string('status', 16).notNullable().defaultTo('active');
      t.string('trigger', 32).nullable();
      t.string('accountability', 16).nullable().defaultTo('all');
      // JSON text (cast-json): the trigger's options (Directus's shape).
      t.text('options').nullable();
      // The first operation; no foreign key (operations refer to their flow: the two would be a cycle).
      t.uuid('operation').nullable();
      t.timestamp('date_created', { useTz: true }).defaultTo(knex.fn.now());
      t.uuid('user_created').nullable().references('id').inTable('service_users').onDelete('SET NULL');
    });
  }
  if (!(await knex.schema.hasTable('service_operations'))) {
    await knex.schema.createTable('service_operations', (t) => {
      t.uuid('id').primary().notNullable();
      t.string('name', 255).nullable();
      t.string('key', 255).notNullable();
      t.string('type', 64).notNullable();
      t.integer('position_x').notNullable().defaultTo(0);
      t.integer('position_y').notNullable().defaultTo(0);
      t.text('options').nullable();
      t.uuid('resolve').nullable();
      t.uuid('reject').nullable();
      t.uuid('flow').notNullable().references('id').inTable('service_flows').onDelete('CASCADE');
      t.timestamp('date_created', { useTz: true }).defaultTo(knex.fn.now());
      t.uuid('user_created').nullable().references('id').inTable('service_users').onDelete('SET NULL');
      t.index(['flow'], 'service_operations_flow_index');
    });
  }
  if (!(await knex.schema.hasTable('service_flow_deliveries'))) {
    await knex.schema.createTable('service_flow_deliveries', (t) => {
      t.string('id', 36).primary().notNullable();
      // No foreign key: the log of a deleted flow's deliveries stays readable.
      t.string('flow', 36).notNullable();
      t.string('event', 255).notNullable();
      t.text('payload').notNullable();
      // pending → delivered | failed (retries used up); a claimed row stays pending with a lease.
      t.string('status', 16).notNullable().defaultTo('pending');
      t.integer('attempts').notNullable().defaultTo(0);
      // Times as epoch milliseconds: compared the same way on every database, whatever its clock type.
      t.bigInteger('next_attempt_at').notNullable();
      t.text('last_error').nullable();
      t.string('locked_by', 64).nullable();
      t.bigInteger('locked_until').nullable();
      t.bigInteger('created_at').notNullable();
      t.bigInteger('updated_at').notNullable();
      t.bigInteger('delivered_at').nullable();
      t.index(['status', 'next_attempt_at'], 'service_flow_deliveries_due_index');
    });
  }
}
