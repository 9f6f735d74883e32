/**
 * The blog fixture's relational metadata, as Directus would hold it: the o2m, m2m and m2a alias fields and the
 * service_relations rows that describe them (Directus docs: Relations). Inserted after bootstrap (the service_* tables exist
 * only then), followed by a schema reload.
 */
import type { AppContext } from '../../src/app/app-context.js';
import { queryBuilder } from '../../src/db/connection.js';

export const FIXTURE_FIELDS = [
  { collection: 'authors', field: 'articles', special: 'o2m', interface: 'list-o2m' },
  { collection: 'articles', field: 'tags', special: 'm2m', interface: 'list-m2m' },
  { collection: 'tags', field: 'articles', special: 'm2m', interface: 'list-m2m' },
  { collection: 'pages', field: 'sections', special: 'm2a', interface: 'list-m2a' },
];

export const FIXTURE_RELATIONS = [
  { many_collection: 'articles', many_field: 'author', one_collection: 'authors', one_field: 'articles' },
  {
    many_collection: 'articles_tags',
    many_field: 'articles_id',
    one_collection: 'articles',
    one_field: 'tags',
    junction_field: 'tags_id',
  },
  {
    many_collection: 'articles_tags',
    many_field: 'tags_id',
    one_collection: 'tags',
    one_field: 'articles',
    junction_field: 'articles_id',
  },
  {
    many_collection: 'pages_sections',
    many_field: 'pages_id',
    one_collection: 'pages',
    one_field: 'sections',
    junction_field: 'item',
    sort_field: 'sort',
  },
  {
    many_collection: 'pages_sections',
    many_field: 'item',
    one_collection: null,
    one_field: null,
    one_collection_field: 'collection',
    one_allowed_collections: 'headings,paragraphs',
    junction_field: 'pages_id',
  },
];

export async function insertFixtureMeta(context: AppContext): Promise<void> {
  const knex = queryBuilder(context.db);
  await knex('service_fields').insert(FIXTURE_FIELDS);
  await knex('service_relations').insert(FIXTURE_RELATIONS);
  await context.schema.load();
}
