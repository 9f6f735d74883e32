/**
 * Tables and metadata the write tests need beyond the blog fixture, made with knex's schema builder so one definition
 * serves every database: `gadgets` (a uuid key and every write special), `comments` (an o2m from articles whose
 * foreign key is NOT NULL), `citations` (a foreign key that restricts deletes), `site` (a singleton) and `notes`
 * (field validation rules). Call after startTestApp.
 */
import type { AppContext } from '../../src/app/app-context.js';
import { queryBuilder } from '../../src/db/connection.js';

export const NOTE_RULES = {
  code: { _and: [{ code: { _regex: '^[A-Z]+$' } }] },
  level: { level: { _between: [1, 5] } },
  email: { _and: [{ email: { _contains: '@' } }] },
};

/** The test app whose database gets the tables; every worker reads the schema again after. */
export interface FixtureTarget {
  context: AppContext;
  reloadSchema(): Promise<void>;
}

export async function addWriteFixture({ context, reloadSchema }: FixtureTarget): Promise<void> {
  const knex = queryBuilder(context.db);
  await knex.schema.createTable('gadgets', (t) => {
    t.uuid('id').primary();
    t.string('name', 50).notNullable();
    t.string('secret', 255);
    t.string('token', 100);
    t.dateTime('created_on');
    t.dateTime('updated_on');
    t.string('created_by', 36);
    t.string('updated_by', 36);
    t.string('created_role', 36);
    t.string('updated_role', 36);
    t.integer('flag');
    t.text('config');
    t.string('labels', 255);
  });
  await knex.schema.createTable('comments', (t) => {
    t.increments('id');
    t.integer('article').notNullable().references('id').inTable('articles').onDelete('CASCADE');
    t.string('body', 100).notNullable();
  });
  await knex.schema.createTable('citations', (t) => {
    t.increments('id');
    t.integer('article').references('id').inTable('articles').onDelete('RESTRICT');
  });
  await knex.schema.createTable('site', (t) => {
    t.increments('id');
    t.string('site_name', 100);
    t.integer('visits');
  });
  await knex.schema.createTable('notes', (t) => {
    t.increments('id');
    t.string('code', 10);
    t.integer('level');
    t.string('email', 100);
  });

  const special = (field: string, value: string) => ({ collection: 'gadgets', field, special: value });
  await knex('service_fields').insert([
    special('id', 'uuid'),
    special('secret', 'hash'),
    special('token', 'conceal'),
    special('created_on', 'date-created'),
    special('updated_on', 'date-updated'),
    special('created_by', 'user-created'),
    special('updated_by', 'user-updated'),
    special('created_role', 'role-created'),
    special('updated_role', 'role-updated'),
    special('flag', 'cast-boolean'),
    special('config', 'cast-json'),
    special('labels', 'cast-csv'),
    { collection: 'articles', field: 'comments', special: 'o2m', interface: 'list-o2m' },
    { collection: 'notes', field: 'code', validation: JSON.stringify(NOTE_RULES.code) },
    { collection: 'notes', field: 'level', validation: JSON.stringify(NOTE_RULES.level) },
    {
      collection: 'notes',
      field: 'email',
      validation: JSON.stringify(NOTE_RULES.email),
      validation_message: 'Has to be an email address.',
    },
  ]);
  await knex('service_relations').insert({
    many_collection: 'comments',
    many_field: 'article',
    one_collection: 'articles',
    one_field: 'comments',
  });
  await knex('service_collections').insert({ collection: 'site', singleton: true });
  await reloadSchema();
}

/** Changes what a relation does to rows an o2m array no longer names, and reloads the schema. */
export async function setDeselectAction(
  { context, reloadSchema }: FixtureTarget,
  manyCollection: string,
  manyField: string,
  action: 'nullify' | 'delete',
): Promise<void> {
  await queryBuilder(context.db)('service_relations')
    .where({ many_collection: manyCollection, many_field: manyField })
    .update({ one_deselect_action: action });
  await reloadSchema();
}
