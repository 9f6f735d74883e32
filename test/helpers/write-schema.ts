/** A hand-made relational SchemaOverview (no database) for mutation-planner tests. */
import { emptyColumn } from '../../src/db/introspection-utils.js';
import type { Accountability } from '../../src/permissions/accountability.js';
import { buildSchemaOverview } from '../../src/schema/overview-builder.js';
import type { ColumnInfo, ForeignKeyInfo, SchemaOverview, ServiceType, TableInfo } from '../../src/schema/types.js';

const TYPES: Record<string, ServiceType> = {};

function column(table: string, name: string, type: ServiceType, extra: Partial<ColumnInfo> = {}): ColumnInfo {
  TYPES[`${table}.${name}`] = type;
  return { ...emptyColumn(table, name), data_type: type, ...extra };
}

const key = (table: string) =>
  column(table, 'id', 'integer', { is_primary_key: true, has_auto_increment: true, is_nullable: false });
const fk = (table: string, name: string, target: string): ForeignKeyInfo => ({
  table,
  column: name,
  foreign_key_table: target,
  foreign_key_column: 'id',
  constraint_name: null,
  on_update: null,
  on_delete: null,
});
function table(name: string, columns: ColumnInfo[], foreign_keys: ForeignKeyInfo[] = []): TableInfo {
  return { name, comment: null, primary_key: [columns.find((c) => c.is_primary_key)!.name], foreign_keys, columns };
}

export const WRITE_SCHEMA: SchemaOverview = buildSchemaOverview({
  tables: [
    table('authors', [
      key('authors'),
      column('authors', 'name', 'string', { max_length: 20, is_nullable: false }),
      column('authors', 'email', 'string', { is_unique: true }),
    ]),
    table(
      'articles',
      [
        key('articles'),
        column('articles', 'title', 'string', { max_length: 50, is_nullable: false }),
        column('articles', 'status', 'string', { is_nullable: false, default_value: 'draft' }),
        column('articles', 'rating', 'integer'),
        column('articles', 'published_on', 'date'),
        column('articles', 'words', 'integer', { is_generated: true }),
        column('articles', 'author', 'integer'),
      ],
      [fk('articles', 'author', 'authors')],
    ),
    table('tags', [key('tags'), column('tags', 'name', 'string', { is_nullable: false })]),
    table(
      'articles_tags',
      [
        key('articles_tags'),
        column('articles_tags', 'articles_id', 'integer'),
        column('articles_tags', 'tags_id', 'integer'),
      ],
      [fk('articles_tags', 'articles_id', 'articles'), fk('articles_tags', 'tags_id', 'tags')],
    ),
    table('pages', [key('pages'), column('pages', 'title', 'string')]),
    table(
      'pages_sections',
      [
        key('pages_sections'),
        column('pages_sections', 'pages_id', 'integer'),
        column('pages_sections', 'item', 'string'),
        column('pages_sections', 'collection', 'string'),
      ],
      [fk('pages_sections', 'pages_id', 'pages')],
    ),
    table('things', [
      column('things', 'id', 'uuid', { is_primary_key: true, is_nullable: false }),
      column('things', 'label', 'string', { is_nullable: false }),
      column('things', 'created', 'timestamp', { is_nullable: false }),
      column('things', 'updated', 'timestamp'),
      column('things', 'owner', 'string'),
      column('things', 'secret', 'string', { max_length: 200 }),
    ]),
    table('service_users', [column('service_users', 'id', 'uuid', { is_primary_key: true })]),
  ],
  collections: [],
  fields: [
    { id: 1, collection: 'authors', field: 'articles', special: 'o2m' },
    { id: 2, collection: 'articles', field: 'tags', special: 'm2m' },
    { id: 3, collection: 'pages', field: 'sections', special: 'm2a' },
    { id: 4, collection: 'things', field: 'id', special: 'uuid' },
    { id: 5, collection: 'things', field: 'created', special: 'date-created' },
    { id: 6, collection: 'things', field: 'updated', special: 'date-updated' },
    { id: 7, collection: 'things', field: 'owner', special: 'user-created' },
    { id: 8, collection: 'things', field: 'secret', special: 'hash' },
    { id: 9, collection: 'articles', field: 'title', validation: JSON.stringify({ title: { _nstarts_with: 'x' } }) },
  ],
  relations: [
    { many_collection: 'articles', many_field: 'author', one_collection: 'authors', one_field: 'articles' },
    {
      many_collection: 'articles_tags',
      many_field: 'articles_id',
      one_collection: 'articles',
      one_field: 'tags',
      junction_field: 'tags_id',
    },
    { many_collection: 'articles_tags', many_field: 'tags_id', one_collection: 'tags', junction_field: 'articles_id' },
    {
      many_collection: 'pages_sections',
      many_field: 'pages_id',
      one_collection: 'pages',
      one_field: 'sections',
      junction_field: 'item',
    },
    {
      many_collection: 'pages_sections',
      many_field: 'item',
      one_collection_field: 'collection',
      one_allowed_collections: 'tags,pages',
      junction_field: 'pages_id',
    },
  ],
  mapType: (c) => TYPES[`${c.table}.${c.name}`] ?? 'unknown',
  version: 1,
});

export const WRITER: Accountability = {
  user: 'u-1',
  role: 'r-1',
  roles: ['r-1'],
  policies: ['p-1'],
  admin: true,
  app: true,
  ip: null,
};
