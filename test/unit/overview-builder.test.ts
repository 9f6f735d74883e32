/** buildSchemaOverview: introspected tables merged with raw service_* rows, as each driver returns them. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { emptyColumn } from '../../src/db/introspection-utils.js';
import { buildSchemaOverview, decodeCollectionMeta, decodeFieldMeta } from '../../src/schema/overview-builder.js';
import type { ColumnInfo, ServiceType, TableInfo } from '../../src/schema/types.js';

function column(table: string, name: string, data_type: string, facts: Partial<ColumnInfo> = {}): ColumnInfo {
  return { ...emptyColumn(table, name), data_type, ...facts };
}

const TYPES: Record<string, ServiceType> = {
  int: 'integer',
  varchar: 'string',
  char: 'string',
  text: 'text',
  uuid: 'uuid',
  json: 'json',
  bool: 'boolean',
};
const mapType = (c: ColumnInfo): ServiceType => TYPES[c.data_type] ?? 'unknown';

const tables: TableInfo[] = [
  {
    name: 'articles',
    comment: 'Posts',
    columns: [
      column('articles', 'id', 'int', { is_primary_key: true, has_auto_increment: true, is_nullable: false }),
      column('articles', 'title', 'varchar', { max_length: 100 }),
      column('articles', 'token', 'char', { max_length: 36 }),
      column('articles', 'secret', 'varchar'),
      column('articles', 'password', 'varchar'),
      column('articles', 'tags', 'text'),
      column('articles', 'extra', 'text'),
      column('articles', 'flag', 'int'),
      column('articles', 'body', 'text'),
      column('articles', 'count', 'int'),
      column('articles', 'author', 'int', { foreign_key_table: 'authors', foreign_key_column: 'id' }),
      column('articles', 'editor', 'int', { foreign_key_table: 'authors', foreign_key_column: 'id' }),
    ],
    primary_key: ['id'],
    foreign_keys: [
      {
        table: 'articles',
        column: 'author',
        foreign_key_table: 'authors',
        foreign_key_column: 'id',
        constraint_name: 'fk_a',
        on_update: 'NO ACTION',
        on_delete: 'SET NULL',
      },
      {
        table: 'articles',
        column: 'editor',
        foreign_key_table: 'authors',
        foreign_key_column: 'id',
        constraint_name: 'fk_e',
        on_update: 'NO ACTION',
        on_delete: 'CASCADE',
      },
    ],
  },
  {
    name: 'authors',
    comment: null,
    columns: [column('authors', 'id', 'uuid', { is_primary_key: true, is_nullable: false })],
    primary_key: ['id'],
    foreign_keys: [],
  },
  {
    name: 'pairs',
    comment: null,
    columns: [
      column('pairs', 'a', 'int', { is_primary_key: true }),
      column('pairs', 'b', 'int', { is_primary_key: true }),
    ],
    primary_key: ['b', 'a'],
    foreign_keys: [],
  },
  { name: 'logs', comment: null, columns: [column('logs', 'line', 'text')], primary_key: [], foreign_keys: [] },
  {
    name: 'service_users',
    comment: null,
    columns: [column('service_users', 'id', 'uuid', { is_primary_key: true })],
    primary_key: ['id'],
    foreign_keys: [],
  },
];

// Field rows as SQLite/MySQL return them: 0/1 booleans, JSON as text, special as CSV.
const fields = [
  {
    id: 1,
    collection: 'articles',
    field: 'token',
    special: 'uuid',
    options: '{"a":1}',
    readonly: 0,
    hidden: 1,
    required: 1,
    searchable: 1,
    sort: '3',
  },
  { id: 2, collection: 'articles', field: 'secret', special: 'conceal', searchable: 1 },
  { id: 3, collection: 'articles', field: 'password', special: 'hash' },
  { id: 4, collection: 'articles', field: 'tags', special: 'cast-csv' },
  {
    id: 5,
    collection: 'articles',
    field: 'extra',
    special: 'cast-json',
    translations: [{ language: 'en-US', translation: 'Extra' }],
  },
  { id: 6, collection: 'articles', field: 'flag', special: 'cast-boolean' },
  { id: 7, collection: 'articles', field: 'body', special: null, searchable: 0 },
  { id: 8, collection: 'articles', field: 'links', special: 'o2m', sort: 9 },
  { id: 9, collection: 'articles', field: 'divider', special: 'alias,no-data', sort: 2 },
  { id: 10, collection: 'authors', field: 'id', special: 'uuid' },
  { id: 11, collection: 'articles', field: 'title', special: 'uuid' },
  { id: 12, collection: 'articles', field: 'count', special: 'uuid' },
];

// Collection rows as PostgreSQL returns them: real booleans, json already parsed.
const collections = [
  {
    collection: 'articles',
    icon: 'article',
    singleton: false,
    hidden: true,
    sort_field: 'count',
    item_duplication_fields: ['title'],
    archive_app_filter: null,
  },
  {
    collection: 'logs',
    singleton: true,
    sort_field: 'nope',
    translations: '[{"language":"en-US"}]',
    collapse: 'closed',
  },
  { collection: 'content', icon: 'folder', singleton: false },
];

const relations = [
  {
    id: 1,
    many_collection: 'articles',
    many_field: 'author',
    one_collection: 'authors',
    one_field: 'articles',
    one_deselect_action: 'delete',
  },
  {
    id: 2,
    many_collection: 'comments',
    many_field: 'item',
    one_collection: null,
    one_allowed_collections: 'articles, authors',
    one_collection_field: 'collection',
    one_deselect_action: 'nullify',
  },
];

const schema = buildSchemaOverview({ tables, collections, fields, relations, mapType, version: 7 });

describe('buildSchemaOverview', () => {
  it('makes every table a collection, marks service_* tables as system and keeps the version', () => {
    assert.equal(schema.version, 7);
    assert.deepEqual(Object.keys(schema.collections).sort(), [
      'articles',
      'authors',
      'content',
      'logs',
      'pairs',
      'service_users',
    ]);
    assert.equal(schema.collections.authors!.meta, null);
    assert.deepEqual(schema.collections.articles!.schema, { name: 'articles', comment: 'Posts' });
    assert.equal(schema.collections.service_users!.system, true);
    assert.equal(schema.collections.articles!.system, false);
  });

  it('turns meta rows without a table into folder collections', () => {
    const folder = schema.collections.content!;
    assert.equal(folder.schema, null);
    assert.deepEqual(
      [folder.fieldOrder, Object.keys(folder.fields), folder.primary, folder.meta!.icon],
      [[], [], null, 'folder'],
    );
    // Maps keyed by names a request chooses have no prototype: `constructor` or `__proto__` name nothing.
    assert.equal(schema.collections['constructor'], undefined);
    assert.equal(schema.collections.authors!.fields['__proto__'], undefined);
    assert.equal(schema.collections.authors!.links['toString'], undefined);
  });

  it('decodes collection meta from native and text encodings', () => {
    const articles = schema.collections.articles!.meta!;
    assert.deepEqual(
      [
        articles.hidden,
        articles.singleton,
        articles.item_duplication_fields,
        articles.archive_app_filter,
        articles.collapse,
      ],
      [true, false, ['title'], true, 'open'],
    );
    const logs = schema.collections.logs!;
    assert.equal(logs.singleton, true);
    assert.deepEqual(logs.meta!.translations, [{ language: 'en-US' }]);
    assert.equal(logs.meta!.collapse, 'closed');
    assert.equal(logs.sortField, null, 'a sort field that is not a field is dropped');
    assert.equal(schema.collections.articles!.sortField, 'count');
  });

  it('picks the primary key: single, every column of a composite key (in key order, no single primary), or none', () => {
    assert.deepEqual([schema.collections.articles!.primary, schema.collections.articles!.keyFields], ['id', ['id']]);
    assert.deepEqual([schema.collections.pairs!.primary, schema.collections.pairs!.keyFields], [null, ['b', 'a']]);
    assert.deepEqual([schema.collections.logs!.primary, schema.collections.logs!.keyFields], [null, []]);
  });

  it('lets meta special decide the type where Directus does', () => {
    const f = schema.collections.articles!.fields;
    const types = Object.fromEntries(Object.values(f).map((field) => [field.field, field.type]));
    assert.deepEqual(types, {
      id: 'integer',
      title: 'uuid',
      token: 'uuid',
      secret: 'string',
      password: 'hash',
      tags: 'csv',
      extra: 'json',
      flag: 'boolean',
      body: 'text',
      count: 'integer',
      author: 'integer',
      editor: 'integer',
      divider: 'alias',
      links: 'alias',
    });
    assert.equal(schema.collections.authors!.fields.id!.type, 'uuid');
  });

  it('conceals hash and conceal fields and keeps them out of search', () => {
    const f = schema.collections.articles!.fields;
    assert.deepEqual([f.secret!.concealed, f.secret!.searchable], [true, false]);
    assert.deepEqual([f.password!.concealed, f.password!.searchable], [true, false]);
    assert.deepEqual([f.title!.concealed, f.id!.concealed], [false, false]);
  });

  it('marks searchable fields per Directus docs: Query parameters', () => {
    const f = schema.collections.articles!.fields;
    assert.equal(f.id!.searchable, true);
    assert.equal(f.title!.searchable, true, 'uuid is searchable');
    assert.equal(f.body!.searchable, false, 'meta.searchable false');
    assert.equal(f.extra!.searchable, false, 'json is not searchable');
    assert.equal(f.flag!.searchable, false, 'boolean is not searchable');
    assert.equal(f.links!.searchable, false, 'alias fields are not searchable');
    assert.equal(schema.collections.logs!.fields.line!.searchable, true);
  });

  it('adds alias fields after the columns, in meta sort order', () => {
    const articles = schema.collections.articles!;
    assert.deepEqual(articles.fieldOrder, [
      'id',
      'title',
      'token',
      'secret',
      'password',
      'tags',
      'extra',
      'flag',
      'body',
      'count',
      'author',
      'editor',
      'divider',
      'links',
    ]);
    const links = articles.fields.links!;
    assert.deepEqual([links.schema, links.nullable, links.primaryKey, links.special], [null, true, false, ['o2m']]);
    assert.deepEqual(articles.fields.divider!.special, ['alias', 'no-data']);
  });

  it('decodes field meta: CSV special, JSON text, 0/1 booleans, numeric strings', () => {
    const token = schema.collections.articles!.fields.token!;
    assert.deepEqual(token.meta!.options, { a: 1 });
    assert.deepEqual(
      [token.meta!.readonly, token.meta!.hidden, token.meta!.required, token.meta!.searchable, token.meta!.sort],
      [false, true, true, true, 3],
    );
    assert.deepEqual(schema.collections.articles!.fields.extra!.meta!.translations, [
      { language: 'en-US', translation: 'Extra' },
    ]);
    assert.equal(schema.collections.articles!.fields.id!.meta, null);
    assert.deepEqual(schema.collections.articles!.fields.id!.special, []);
    const decoded = decodeFieldMeta({
      id: '4',
      collection: 'c',
      field: 'f',
      special: '',
      options: 'not json',
      searchable: null,
      hidden: 'true',
    });
    assert.deepEqual(
      [decoded.id, decoded.special, decoded.options, decoded.searchable, decoded.hidden],
      [4, null, null, true, true],
    );
    assert.equal(decodeCollectionMeta({ collection: 'x', versioning: 1 }).versioning, true);
  });

  it('copies the column facts the planner needs', () => {
    const id = schema.collections.articles!.fields.id!;
    assert.deepEqual([id.nullable, id.primaryKey, id.schema!.has_auto_increment], [false, true, true]);
    assert.equal(schema.collections.articles!.fields.title!.nullable, true);
  });

  it('merges relation meta with foreign keys', () => {
    const byField = new Map(schema.relations.map((r) => [`${r.collection}.${r.field}`, r]));
    assert.equal(schema.relations.length, 3);
    const author = byField.get('articles.author')!;
    assert.equal(author.related_collection, 'authors');
    assert.equal(author.meta!.one_field, 'articles');
    assert.equal(author.meta!.one_deselect_action, 'delete');
    assert.equal(author.schema!.on_delete, 'SET NULL');
    assert.equal(author.schema!.constraint_name, 'fk_a');

    const editor = byField.get('articles.editor')!;
    assert.deepEqual([editor.meta, editor.related_collection, editor.schema!.on_delete], [null, 'authors', 'CASCADE']);

    const a2o = byField.get('comments.item')!;
    assert.deepEqual([a2o.schema, a2o.related_collection], [null, null]);
    assert.deepEqual(a2o.meta!.one_allowed_collections, ['articles', 'authors']);
    assert.equal(a2o.meta!.one_collection_field, 'collection');
    assert.equal(a2o.meta!.junction_field, null);
  });

  it('freezes the whole overview', () => {
    assert.ok(Object.isFrozen(schema));
    assert.ok(Object.isFrozen(schema.collections.articles!.fields.title!.schema));
    assert.ok(Object.isFrozen(schema.relations[0]!.meta));
    assert.throws(() => {
      (schema.collections.articles as { primary: string | null }).primary = 'title';
    }, TypeError);
  });
});
