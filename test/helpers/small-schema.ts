/** A hand-made SchemaOverview (no database) for planner and SQL-compiler tests. */
import { mysqlSql } from '../../src/db/dialects/mysql/sql-hooks.js';
import { postgresSql } from '../../src/db/dialects/postgres/sql-hooks.js';
import { sqliteSql } from '../../src/db/dialects/sqlite/sql-hooks.js';
import { emptyColumn } from '../../src/db/introspection-utils.js';
import type { Accountability } from '../../src/permissions/accountability.js';
import { buildSchemaOverview } from '../../src/schema/overview-builder.js';
import type { ColumnInfo, SchemaOverview, ServiceType, TableInfo } from '../../src/schema/types.js';
import type { SqlDialect } from '../../src/sql/dialect-hooks.js';

const TYPES: Record<string, ServiceType> = {};

function column(table: string, name: string, type: ServiceType, extra: Partial<ColumnInfo> = {}): ColumnInfo {
  const c = { ...emptyColumn(table, name), data_type: type, ...extra };
  TYPES[`${table}.${name}`] = type;
  return c;
}

const articles: TableInfo = {
  name: 'articles',
  comment: null,
  primary_key: ['id'],
  foreign_keys: [],
  columns: [
    column('articles', 'id', 'integer', { is_primary_key: true, has_auto_increment: true, is_nullable: false }),
    column('articles', 'title', 'string', { max_length: 200 }),
    column('articles', 'rating', 'integer'),
    column('articles', 'price', 'decimal', { numeric_precision: 10, numeric_scale: 2 }),
    column('articles', 'published', 'boolean'),
    column('articles', 'updated_at', 'timestamp'),
    column('articles', 'metadata', 'json'),
    column('articles', 'secret', 'string'),
    column('articles', 'author', 'integer'),
  ],
};

const authors: TableInfo = {
  name: 'authors',
  comment: null,
  primary_key: ['id'],
  foreign_keys: [],
  columns: [
    column('authors', 'id', 'integer', { is_primary_key: true, is_nullable: false }),
    column('authors', 'name', 'string', { is_nullable: false }),
  ],
};

const comments: TableInfo = {
  name: 'comments',
  comment: null,
  primary_key: ['id'],
  foreign_keys: [],
  columns: [
    column('comments', 'id', 'integer', { is_primary_key: true, is_nullable: false }),
    column('comments', 'body', 'text'),
    column('comments', 'article', 'integer'),
  ],
};

/** m2a junction: article blocks pointing at authors or comments. */
const blocks: TableInfo = {
  name: 'articles_blocks',
  comment: null,
  primary_key: ['id'],
  foreign_keys: [],
  columns: [
    column('articles_blocks', 'id', 'integer', { is_primary_key: true, is_nullable: false }),
    column('articles_blocks', 'articles_id', 'integer'),
    column('articles_blocks', 'item', 'string'),
    column('articles_blocks', 'collection', 'string'),
  ],
};

export const SMALL_SCHEMA: SchemaOverview = buildSchemaOverview({
  tables: [
    articles,
    authors,
    comments,
    blocks,
    {
      name: 'service_users',
      comment: null,
      primary_key: ['id'],
      foreign_keys: [],
      columns: [column('service_users', 'id', 'uuid', { is_primary_key: true })],
    },
  ],
  collections: [],
  fields: [
    { id: 1, collection: 'articles', field: 'secret', special: 'conceal' },
    { id: 2, collection: 'articles', field: 'comments', special: 'o2m' },
    { id: 3, collection: 'articles', field: 'blocks', special: 'm2a' },
  ],
  relations: [
    { many_collection: 'articles', many_field: 'author', one_collection: 'authors' },
    { many_collection: 'comments', many_field: 'article', one_collection: 'articles', one_field: 'comments' },
    {
      many_collection: 'articles_blocks',
      many_field: 'articles_id',
      one_collection: 'articles',
      one_field: 'blocks',
      junction_field: 'item',
    },
    {
      many_collection: 'articles_blocks',
      many_field: 'item',
      one_collection_field: 'collection',
      one_allowed_collections: 'authors,comments',
      junction_field: 'articles_id',
    },
  ],
  mapType: (c) => TYPES[`${c.table}.${c.name}`] ?? 'unknown',
  version: 1,
});

export const ADMIN_ACCOUNTABILITY: Accountability = {
  user: 'u1',
  role: 'r1',
  roles: ['r1'],
  policies: ['p1'],
  admin: true,
  app: true,
  ip: null,
};

export const DIALECTS: Record<string, SqlDialect> = { postgres: postgresSql, mysql: mysqlSql, sqlite: sqliteSql };
