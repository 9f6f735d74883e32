/**
 * Introspection and the schema overview on every database: the fixture's tables, read back with the same facts and
 * the same service types everywhere.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { readConfig } from '../../src/config/config.js';
import { Database } from '../../src/db/connection.js';
import { SchemaStore } from '../../src/schema/schema-store.js';
import type { SchemaOverview } from '../../src/schema/types.js';
import { clientLabel, createTestDatabase, knexFor, testClients, type TestDb } from '../helpers/test-db.js';

const ARTICLE_TYPES = {
  id: 'integer',
  title: 'string',
  slug: 'string',
  body: 'text',
  status: 'string',
  rating: 'integer',
  views: 'bigInteger',
  price: 'decimal',
  score: 'float',
  published: 'boolean',
  publish_date: 'date',
  published_at: 'dateTime',
  updated_at: 'timestamp',
  read_time: 'time',
  metadata: 'json',
  title_length: 'integer',
  author: 'integer',
};

for (const client of testClients()) {
  describe(`introspection and schema overview (${clientLabel(client)})`, () => {
    let testDb: TestDb;
    let db: Database;
    let schema: SchemaOverview;
    let store: SchemaStore;

    before(async () => {
      testDb = await createTestDatabase(client, { fixture: true });
      db = new Database(readConfig(testDb.env).db);
      store = new SchemaStore(db);
      schema = await store.load();
    });
    after(async () => {
      await db?.close();
      await testDb?.drop();
    });

    it('serves every table, created by Strata or not, with meta null', () => {
      for (const name of ['authors', 'articles', 'tags', 'articles_tags']) {
        const collection = schema.collections[name]!;
        assert.ok(collection, name);
        assert.equal(collection.meta, null);
        assert.equal(collection.primary, 'id');
        assert.equal(collection.system, false);
      }
    });

    it('maps every column to the same service type on every database', () => {
      const articles = schema.collections.articles!;
      const types = Object.fromEntries(Object.entries(ARTICLE_TYPES).map(([field]) => [field, articles.fields[field]!.type]));
      assert.deepEqual(types, ARTICLE_TYPES);
      assert.deepEqual(articles.fieldOrder.slice(0, 3), ['id', 'title', 'slug']);
    });

    it('reads the field schema facts', () => {
      const f = schema.collections.articles!.fields;
      assert.deepEqual(
        [f.id!.schema!.is_primary_key, f.id!.schema!.has_auto_increment, f.id!.schema!.is_nullable, f.id!.primaryKey],
        [true, true, false, true],
      );
      assert.equal(f.title!.schema!.max_length, 200);
      assert.equal(f.title!.schema!.is_nullable, false);
      assert.equal(f.slug!.schema!.is_unique, true);
      assert.equal(f.slug!.schema!.is_indexed, true);
      assert.equal(f.status!.schema!.is_indexed, true);
      assert.equal(f.status!.schema!.is_unique, false);
      assert.equal(f.status!.schema!.default_value, 'draft');
      assert.equal(f.views!.schema!.default_value, 0);
      assert.deepEqual([f.price!.schema!.numeric_precision, f.price!.schema!.numeric_scale], [10, 2]);
      assert.equal(f.body!.schema!.is_nullable, true);
      assert.equal(f.title_length!.schema!.is_generated, true);
      assert.match(String(f.title_length!.schema!.generation_expression), /length/i);
      assert.equal(f.author!.schema!.foreign_key_table, 'authors');
      assert.equal(f.author!.schema!.foreign_key_column, 'id');
      if (client !== 'sqlite3') assert.equal(f.title!.schema!.comment, 'The headline');
      const authors = schema.collections.authors!.fields;
      assert.ok([true, 1].includes(authors.active!.schema!.default_value as number), String(authors.active!.schema!.default_value));
    });

    it('lists foreign keys as m2o relations with their actions', () => {
      const author = schema.relations.find((r) => r.collection === 'articles' && r.field === 'author')!;
      assert.equal(author.related_collection, 'authors');
      assert.equal(author.meta, null);
      assert.equal(author.schema!.on_delete, 'SET NULL');
      const junction = schema.relations.filter((r) => r.collection === 'articles_tags').map((r) => [r.field, r.related_collection, r.schema!.on_delete]);
      assert.deepEqual(junction.sort(), [['articles_id', 'articles', 'CASCADE'], ['tags_id', 'tags', 'CASCADE']]);
    });

    it('merges service_* metadata on reload and bumps the version', async () => {
      const k = knexFor(testDb);
      try {
        await k.schema.createTable('service_fields', (t) => {
          t.increments('id');
          t.string('collection');
          t.string('field');
          t.string('special');
          t.boolean('searchable').defaultTo(true);
          t.integer('sort');
        });
        await k.schema.createTable('service_collections', (t) => {
          t.string('collection').primary();
          t.boolean('singleton').defaultTo(false);
          t.string('sort_field');
        });
        await k('service_fields').insert([
          { collection: 'articles', field: 'slug', special: 'cast-csv' },
          { collection: 'articles', field: 'body', special: 'conceal', searchable: true },
          { collection: 'authors', field: 'articles', special: 'o2m', sort: 1 },
        ]);
        await k('service_collections').insert([
          { collection: 'tags', singleton: false, sort_field: 'name' },
          { collection: 'folder', singleton: false },
        ]);
      } finally {
        await k.destroy();
      }
      const version = schema.version;
      const reloaded = await store.load();
      assert.equal(reloaded.version, version + 1);
      assert.equal(store.current, reloaded);
      assert.equal(reloaded.collections.articles!.fields.slug!.type, 'csv');
      assert.equal(reloaded.collections.articles!.fields.body!.concealed, true);
      assert.equal(reloaded.collections.articles!.fields.body!.searchable, false);
      const alias = reloaded.collections.authors!.fields.articles!;
      assert.deepEqual([alias.type, alias.schema, reloaded.collections.authors!.fieldOrder.at(-1)], ['alias', null, 'articles']);
      assert.equal(reloaded.collections.tags!.sortField, 'name');
      assert.equal(reloaded.collections.folder!.schema, null);
      assert.ok(Object.isFrozen(reloaded.collections.articles));
    });
  });
}
