/**
 * service_notices: one change counter per bus channel (schema, permissions). Instances without Redis learn of
 * another instance's change by polling these counters (src/bus/database-bus.ts).
 */
import type { Knex } from 'knex';

export const version = '0002';
export const name = 'service notices';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('service_notices', (t) => {
    t.string('channel', 64).primary();
    t.bigInteger('counter').notNullable().defaultTo(0);
  });
  await knex('service_notices').insert([{ channel: 'schema' }, { channel: 'permissions' }]);
}
