/**
 * Registration settings (Directus's public_registration*) and service_account_tokens: the one-time tokens mailed
 * for password resets, invitations and address checks, stored only as their SHA-256 (a leaked table row cannot be
 * used), with their purpose, user and expiry. Numbered 0011: the numbers between belong to other branches.
 */
import type { Knex } from 'knex';

export const version = '0011';
export const name = 'accounts by mail';

const SETTINGS_COLUMNS: [string, (t: Knex.AlterTableBuilder) => void][] = [
  ['public_registration', (t) => t.boolean('public_registration').notNullable().defaultTo(false)],
  ['public_registration_verify_email', (t) => t.boolean('public_registration_verify_email').defaultTo(true)],
  [
    'public_registration_role',
    (t) => t.uuid('public_registration_role').nullable().references('id').inTable('service_roles').onDelete('SET NULL'),
  ],
  ['public_registration_email_filter', (t) => t.text('public_registration_email_filter').nullable()],
];

export async function up(knex: Knex): Promise<void> {
  // MySQL commits DDL at once: a migration cut short is run again from the top, so each change is made only once.
  for (const [column, add] of SETTINGS_COLUMNS)
    if (!(await knex.schema.hasColumn('service_settings', column)))
      await knex.schema.alterTable('service_settings', (t) => add(t));
  if (!(await knex.schema.hasTable('service_account_tokens'))) {
    await knex.schema.createTable('service_account_tokens', (t) => {
      t.string('token', 64).primary().notNullable();
      t.string('purpose', 32).notNullable();
      t.uuid('user').notNullable().references('id').inTable('service_users').onDelete('CASCADE');
      t.timestamp('expires', { useTz: true }).notNullable();
      t.index(['user', 'purpose'], 'service_account_tokens_user_purpose_index');
    });
  }
}
