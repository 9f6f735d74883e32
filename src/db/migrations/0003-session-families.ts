/**
 * Sessions belong to a family: the login they come from, kept through every refresh. Access tokens carry the family
 * (`sid`), so a logout can end every token of the login at once, on every instance.
 */
import type { Knex } from 'knex';

export const version = '0003';
export const name = 'session families';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('service_sessions', (t) => {
    t.string('family', 64).nullable().index('service_sessions_family_index');
  });
}
