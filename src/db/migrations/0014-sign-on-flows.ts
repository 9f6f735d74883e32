/**
 * service_sign_on_flows: the sign-on flows whose callback has been taken, so that a flow is spent once across every
 * worker and instance on the database (auth/providers/login-flow.ts). A row lives until its flow's cookie could no
 * longer be accepted anyway. Numbered 0014: the numbers before it are taken.
 */
import type { Knex } from 'knex';

export const version = '0014';
export const name = 'sign-on flows';

export async function up(knex: Knex): Promise<void> {
  if (await knex.schema.hasTable('service_sign_on_flows')) return;
  await knex.schema.createTable('service_sign_on_flows', (t) => {
    t.string('id', 64).primary().notNullable();
    // In ms since the epoch: compared as a number, the same on every dialect and time zone.
    t.bigInteger('expires_at').notNullable();
    t.index(['expires_at'], 'service_sign_on_flows_expires_at_index');
  });
}
