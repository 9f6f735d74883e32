/** The service_* system tables, with Directus's columns (directus_ → service_). Vendor-neutral knex schema builder. */
import type { Knex } from 'knex';

export const version = '0001';
export const name = 'system tables';

export async function up(knex: Knex): Promise<void> {
  await createSchemaTables(knex);
  await createAccessTables(knex);
  await createProjectTables(knex);
}

/** What the schema holds beyond the database's own catalog: collections, fields, relations. */
async function createSchemaTables(knex: Knex): Promise<void> {
  await knex.schema.createTable('service_collections', (t) => {
    t.string('collection', 64).primary();
    t.string('icon', 64);
    t.text('note');
    t.string('display_template', 255);
    t.boolean('hidden').notNullable().defaultTo(false);
    t.boolean('singleton').notNullable().defaultTo(false);
    t.text('translations');
    t.string('archive_field', 64);
    t.boolean('archive_app_filter').notNullable().defaultTo(true);
    t.string('archive_value', 255);
    t.string('unarchive_value', 255);
    t.string('sort_field', 64);
    t.string('accountability', 255).defaultTo('all');
    t.string('color', 255);
    t.text('item_duplication_fields');
    t.integer('sort');
    t.string('group', 64);
    t.string('collapse', 255).notNullable().defaultTo('open');
    t.string('preview_url', 255);
    t.boolean('versioning').notNullable().defaultTo(false);
  });

  await knex.schema.createTable('service_fields', (t) => {
    t.increments('id');
    t.string('collection', 64).notNullable();
    t.string('field', 64).notNullable();
    t.string('special', 64);
    t.string('interface', 64);
    t.text('options');
    t.string('display', 64);
    t.text('display_options');
    t.boolean('readonly').notNullable().defaultTo(false);
    t.boolean('hidden').notNullable().defaultTo(false);
    t.integer('sort');
    t.string('width', 30).defaultTo('full');
    t.text('translations');
    t.text('note');
    t.text('conditions');
    t.boolean('required').defaultTo(false);
    t.string('group', 64);
    t.text('validation');
    t.text('validation_message');
    t.boolean('searchable').notNullable().defaultTo(true);
    t.unique(['collection', 'field']);
  });

  await knex.schema.createTable('service_relations', (t) => {
    t.increments('id');
    t.string('many_collection', 64).notNullable();
    t.string('many_field', 64).notNullable();
    t.string('one_collection', 64);
    t.string('one_field', 64);
    t.string('one_collection_field', 64);
    t.text('one_allowed_collections');
    t.string('junction_field', 64);
    t.string('sort_field', 64);
    t.string('one_deselect_action', 255).notNullable().defaultTo('nullify');
  });
}

/** Who may do what: roles, policies, users, their access, permissions and sessions. */
async function createAccessTables(knex: Knex): Promise<void> {
  await knex.schema.createTable('service_roles', (t) => {
    t.uuid('id').primary();
    t.string('name', 100).notNullable();
    t.string('icon', 64).notNullable().defaultTo('supervised_user_circle');
    t.text('description');
    t.uuid('parent').references('id').inTable('service_roles');
  });

  await knex.schema.createTable('service_policies', (t) => {
    t.uuid('id').primary();
    t.string('name', 100).notNullable();
    t.string('icon', 64).notNullable().defaultTo('badge');
    t.text('description');
    t.text('ip_access');
    t.boolean('enforce_tfa').notNullable().defaultTo(false);
    t.boolean('admin_access').notNullable().defaultTo(false);
    t.boolean('app_access').notNullable().defaultTo(false);
  });

  await knex.schema.createTable('service_users', (t) => {
    t.uuid('id').primary();
    t.string('first_name', 50);
    t.string('last_name', 50);
    t.string('email', 128).unique();
    t.string('password', 255);
    t.string('location', 255);
    t.string('title', 50);
    t.text('description');
    t.text('tags');
    t.uuid('avatar');
    t.string('language', 255);
    t.string('tfa_secret', 255);
    t.string('status', 16).notNullable().defaultTo('active');
    t.uuid('role').references('id').inTable('service_roles').onDelete('SET NULL');
    t.string('token', 255).unique();
    t.timestamp('last_access', { useTz: true });
    t.string('last_page', 255);
    t.string('provider', 128).notNullable().defaultTo('default');
    t.string('external_identifier', 255).unique();
    t.text('auth_data');
    t.boolean('email_notifications').defaultTo(true);
    t.string('appearance', 255);
    t.string('theme_dark', 255);
    t.string('theme_light', 255);
    t.text('theme_light_overrides');
    t.text('theme_dark_overrides');
    t.string('text_direction', 255).notNullable().defaultTo('auto');
  });

  await knex.schema.createTable('service_access', (t) => {
    t.uuid('id').primary();
    t.uuid('role').references('id').inTable('service_roles').onDelete('CASCADE');
    t.uuid('user').references('id').inTable('service_users').onDelete('CASCADE');
    t.uuid('policy').notNullable().references('id').inTable('service_policies').onDelete('CASCADE');
    t.integer('sort');
  });

  await knex.schema.createTable('service_permissions', (t) => {
    t.increments('id');
    t.string('collection', 64).notNullable();
    t.string('action', 10).notNullable();
    t.text('permissions');
    t.text('validation');
    t.text('presets');
    t.text('fields');
    t.uuid('policy').notNullable().references('id').inTable('service_policies').onDelete('CASCADE');
  });

  await knex.schema.createTable('service_sessions', (t) => {
    t.string('token', 64).primary();
    t.uuid('user').references('id').inTable('service_users').onDelete('CASCADE');
    t.timestamp('expires', { useTz: true }).notNullable();
    t.string('ip', 255);
    t.text('user_agent');
    t.uuid('share');
    t.string('origin', 255);
    t.string('next_token', 64);
  });
}

/** The project's settings and its activity and revisions. */
async function createProjectTables(knex: Knex): Promise<void> {
  await knex.schema.createTable('service_settings', (t) => {
    t.increments('id');
    t.string('project_name', 100).notNullable().defaultTo('Strata');
    t.string('project_url', 255);
    t.string('project_color', 255).notNullable().defaultTo('#6644FF');
    t.uuid('project_logo');
    t.uuid('public_foreground');
    t.uuid('public_background');
    t.text('public_note');
    t.integer('auth_login_attempts').defaultTo(25);
    t.string('auth_password_policy', 100);
    t.string('storage_asset_transform', 7).defaultTo('all');
    t.text('storage_asset_presets');
    t.text('custom_css');
    t.string('default_language', 255).notNullable().defaultTo('en-US');
    t.text('project_descriptor');
    t.string('default_appearance', 255).notNullable().defaultTo('auto');
  });

  await knex.schema.createTable('service_activity', (t) => {
    t.increments('id');
    t.string('action', 45).notNullable();
    t.uuid('user');
    t.timestamp('timestamp', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.string('ip', 50);
    t.text('user_agent');
    t.string('collection', 64).notNullable();
    t.string('item', 255).notNullable();
    t.string('origin', 255);
  });

  await knex.schema.createTable('service_revisions', (t) => {
    t.increments('id');
    t.integer('activity').unsigned().notNullable().references('id').inTable('service_activity').onDelete('CASCADE');
    t.string('collection', 64).notNullable();
    t.string('item', 255).notNullable();
    t.text('data');
    t.text('delta');
    t.integer('parent').unsigned().references('id').inTable('service_revisions');
  });
}
