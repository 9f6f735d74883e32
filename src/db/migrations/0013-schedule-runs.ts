/**
 * service_schedule_runs: one row per (schedule, tick) claimed by the instance that runs it, so a cron schedule runs
 * each tick once across instances. Numbered 0013: the numbers before it are taken by other branches.
 */
import type { Knex } from 'knex';

export const version = '0013';
export const name = 'schedule runs';

export async function up(knex: Knex): Promise<void> {
  if (await knex.schema.hasTable('service_schedule_runs')) return;
  await knex.schema.createTable('service_schedule_runs', (t) => {
    t.string('schedule', 255).notNullable();
    // The tick's scheduled time, in ms since the epoch (the same value on every instance).
    t.bigInteger('tick').notNullable();
    t.timestamp('claimed_at', { useTz: true }).notNullable();
    t.primary(['schedule', 'tick']);
  });
}
