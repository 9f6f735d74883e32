/**
 * Golden DDL: representative schema changes, as steps (src/schema-admin/plan/schema-steps.ts), rendered by each dialect and run
 * against each database; the statements that ran are compared exactly with test/sql/ddl/<case>.<dialect>.sql
 * (`UPDATE_SNAPSHOTS=1` writes them). The cases build on each other, on one database per dialect; after each, the
 * introspected columns show the change took.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Database, queryBuilder } from '../../src/db/connection.js';
import { constraintName } from '../../src/db/ddl-names.js';
import type { DdlStatement } from '../../src/db/schema-ddl.js';
import type { ColumnChanges, ColumnSpec } from '../../src/schema-admin/plan/column-spec.js';
import { SchemaExecutor } from '../../src/db/schema-executor.js';
import { formatSteps, type DdlStep } from '../../src/schema-admin/plan/schema-steps.js';
import { conversionCheck } from '../../src/schema-admin/plan/type-conversions.js';
import type { ColumnInfo, ForeignKeyInfo, TableInfo } from '../../src/schema/types.js';
import { clientLabel, createTestDatabase, testClients, type TestDb } from '../helpers/test-db.js';

const GOLDEN = path.join(path.dirname(fileURLToPath(import.meta.url)), 'ddl');

function spec(name: string, type: ColumnSpec['type'], extra: Partial<ColumnSpec> = {}): ColumnSpec {
  return {
    name,
    type,
    maxLength: type === 'string' ? 255 : null,
    precision: type === 'decimal' ? 10 : null,
    scale: type === 'decimal' ? 5 : null,
    nullable: true,
    default: { kind: 'none' },
    primaryKey: false,
    autoIncrement: false,
    unique: false,
    indexed: false,
    comment: null,
    ...extra,
  };
}

const NO_CHANGES: ColumnChanges = {
  type: false,
  nullable: false,
  default: false,
  comment: false,
  unique: false,
  indexed: false,
};

interface Catalog {
  column(table: string, column: string): ColumnInfo;
  keys(table: string, column: string): ForeignKeyInfo[];
}

function catalogOf(tables: TableInfo[]): Catalog {
  const table = (name: string) => tables.find((t) => t.name === name) ?? assert.fail(`no table ${name}`);
  return {
    column: (t, c) => table(t).columns.find((col) => col.name === c) ?? assert.fail(`no column ${t}.${c}`),
    keys: (t, c) =>
      tables
        .flatMap((x) => x.foreign_keys)
        .filter((k) => (k.table === t && k.column === c) || (k.foreign_key_table === t && k.foreign_key_column === c)),
  };
}

function alter(
  catalog: Catalog,
  table: string,
  target: ColumnSpec,
  changes: Partial<ColumnChanges>,
  from?: ColumnSpec['type'],
): DdlStep {
  const current = catalog.column(table, target.name);
  const conversion = changes.type && from ? conversionCheck(from, current, target) : null;
  return {
    kind: 'alterColumn',
    table,
    current,
    target,
    changes: { ...NO_CHANGES, ...changes },
    conversion,
    keys: catalog.keys(table, target.name),
  };
}

const articleKey = (onDelete: string | null): ForeignKeyInfo => ({
  table: 'ddl_articles',
  column: 'author',
  foreign_key_table: 'ddl_authors',
  foreign_key_column: 'id',
  constraint_name: constraintName('ddl_articles', 'author', 'foreign'),
  on_delete: onDelete,
  on_update: null,
});

/** Each case: the steps, planned from the catalog as the earlier cases left it, and what must hold after. */
const CASES: { name: string; steps(catalog: Catalog): DdlStep[]; after(catalog: Catalog, client: string): void }[] = [
  {
    name: 'create-collection',
    steps: () => [
      {
        kind: 'createTable',
        table: 'ddl_authors',
        columns: [
          spec('id', 'integer', { primaryKey: true, autoIncrement: true, nullable: false }),
          spec('name', 'string', { maxLength: 80, nullable: false }),
        ],
      },
      {
        kind: 'createTable',
        table: 'ddl_articles',
        columns: [
          spec('id', 'uuid', { primaryKey: true, nullable: false }),
          spec('title', 'string', {
            maxLength: 120,
            nullable: false,
            default: { kind: 'value', value: 'untitled' },
            unique: true,
            comment: 'Shown in lists',
          }),
          spec('score', 'decimal', { precision: 8, scale: 2, default: { kind: 'value', value: 0 } }),
          spec('views', 'bigInteger', { indexed: true }),
          spec('author', 'integer'),
          spec('created_at', 'timestamp', { default: { kind: 'now' } }),
        ],
      },
      {
        kind: 'createTable',
        table: 'ddl_tags',
        columns: [
          spec('article', 'uuid', { primaryKey: true, nullable: false }),
          spec('tag', 'string', { maxLength: 40, primaryKey: true, nullable: false }),
        ],
      },
    ],
    after(catalog) {
      assert.equal(catalog.column('ddl_authors', 'id').has_auto_increment, true);
      assert.equal(catalog.column('ddl_articles', 'title').is_unique, true);
      assert.equal(catalog.column('ddl_articles', 'views').is_indexed, true);
      assert.equal(catalog.column('ddl_tags', 'tag').is_primary_key, true);
    },
  },
  {
    name: 'add-fields',
    steps: () => [
      ...(
        [
          ['body', 'text'],
          ['rank', 'integer'],
          ['flag', 'boolean'],
          ['rating', 'float'],
          ['extra', 'json'],
          ['published_on', 'date'],
          ['edited', 'dateTime'],
          ['alarm', 'time'],
          ['ref', 'uuid'],
          ['payload', 'binary'],
        ] as const
      ).map(([name, type]): DdlStep => ({ kind: 'addColumn', table: 'ddl_articles', column: spec(name, type) })),
      { kind: 'addColumn', table: 'ddl_articles', column: spec('slug', 'string', { maxLength: 60, unique: true }) },
      {
        kind: 'addColumn',
        table: 'ddl_articles',
        column: spec('status', 'string', {
          maxLength: 20,
          nullable: false,
          default: { kind: 'value', value: 'draft' },
          indexed: true,
        }),
      },
      {
        kind: 'addColumn',
        table: 'ddl_articles',
        column: spec('live', 'boolean', { nullable: false, default: { kind: 'value', value: true } }),
      },
      // SQLite rebuilds the table for these two: ADD COLUMN takes neither.
      {
        kind: 'addColumn',
        table: 'ddl_articles',
        column: spec('touched_at', 'dateTime', { default: { kind: 'now' } }),
      },
      { kind: 'addColumn', table: 'ddl_authors', column: spec('email', 'string', { nullable: false }) },
    ],
    after(catalog) {
      assert.equal(catalog.column('ddl_articles', 'status').is_nullable, false);
      assert.equal(catalog.column('ddl_articles', 'slug').is_unique, true);
      assert.equal(catalog.column('ddl_authors', 'email').is_nullable, false);
    },
  },
  {
    name: 'alter-type',
    steps: (catalog) => [
      alter(catalog, 'ddl_articles', spec('rank', 'bigInteger'), { type: true }, 'integer'),
      alter(catalog, 'ddl_articles', spec('body', 'string', { maxLength: 500 }), { type: true }, 'text'),
      alter(
        catalog,
        'ddl_articles',
        spec('score', 'decimal', { precision: 12, scale: 4, default: { kind: 'value', value: 0 } }),
        { type: true },
        'decimal',
      ),
    ],
    after(catalog) {
      assert.equal(catalog.column('ddl_articles', 'body').max_length, 500);
      assert.equal(catalog.column('ddl_articles', 'score').numeric_precision, 12);
    },
  },
  {
    name: 'alter-nullable-default',
    steps: (catalog) => [
      alter(
        catalog,
        'ddl_articles',
        spec('rating', 'float', { nullable: false, default: { kind: 'value', value: 2.5 } }),
        { nullable: true, default: true },
      ),
      alter(
        catalog,
        'ddl_articles',
        spec('title', 'string', { maxLength: 120, nullable: true, unique: true, comment: 'Shown in lists' }),
        { nullable: true, default: true },
      ),
    ],
    after(catalog) {
      assert.equal(catalog.column('ddl_articles', 'rating').is_nullable, false);
      assert.equal(catalog.column('ddl_articles', 'title').is_nullable, true);
      assert.equal(catalog.column('ddl_articles', 'title').default_value, null);
    },
  },
  {
    name: 'alter-unique-index',
    steps: (catalog) => [
      alter(catalog, 'ddl_articles', spec('title', 'string', { maxLength: 120, unique: false }), { unique: true }),
      alter(catalog, 'ddl_articles', spec('rank', 'bigInteger', { unique: true }), { unique: true }),
      alter(catalog, 'ddl_articles', spec('views', 'bigInteger', { indexed: false }), { indexed: true }),
      alter(catalog, 'ddl_articles', spec('flag', 'boolean', { indexed: true }), { indexed: true }),
    ],
    after(catalog) {
      assert.equal(catalog.column('ddl_articles', 'title').is_unique, false);
      assert.equal(catalog.column('ddl_articles', 'rank').is_unique, true);
      assert.equal(catalog.column('ddl_articles', 'views').is_indexed, false);
      assert.equal(catalog.column('ddl_articles', 'flag').is_indexed, true);
    },
  },
  {
    name: 'foreign-keys',
    steps: () => [
      { kind: 'addForeignKey', key: articleKey('SET NULL') },
      // A changed action: the key is replaced.
      { kind: 'dropForeignKey', key: articleKey('SET NULL') },
      { kind: 'addForeignKey', key: articleKey('CASCADE') },
    ],
    after(catalog) {
      const [key] = catalog.keys('ddl_articles', 'author');
      assert.equal(key?.foreign_key_table, 'ddl_authors');
      assert.equal(key?.on_delete, 'CASCADE');
    },
  },
  {
    name: 'drop',
    steps: (catalog) => [
      { kind: 'dropColumn', table: 'ddl_articles', column: 'payload', keys: catalog.keys('ddl_articles', 'payload') },
      // The column a foreign key of another table points at: the key goes first.
      { kind: 'dropColumn', table: 'ddl_authors', column: 'id', keys: catalog.keys('ddl_authors', 'id') },
      { kind: 'dropTable', table: 'ddl_tags', keys: [] },
    ],
    after(catalog) {
      assert.throws(() => catalog.column('ddl_articles', 'payload'));
      assert.deepEqual(catalog.keys('ddl_articles', 'author'), []);
    },
  },
  {
    // Column definitions and defaults of every storage type, as created, added and altered.
    name: 'defaults',
    steps: () => [
      {
        kind: 'createTable',
        table: 'ddl_defaults',
        columns: [
          spec('id', 'bigInteger', { primaryKey: true, autoIncrement: true, nullable: false }),
          spec('label', 'string', {
            maxLength: 30,
            default: { kind: 'value', value: "it's a \\ test" },
            comment: "Owner's note",
          }),
          spec('active', 'boolean', { nullable: false, default: { kind: 'value', value: false } }),
          spec('ratio', 'float', { default: { kind: 'value', value: -1.5 } }),
          spec('amount', 'decimal', { precision: 6, scale: 2, default: { kind: 'value', value: 12.5 } }),
          spec('day', 'date', { default: { kind: 'value', value: '2024-01-02' } }),
          spec('moment', 'dateTime', { default: { kind: 'value', value: '2024-01-02T03:04:05Z' } }),
          spec('stamp', 'timestamp', { default: { kind: 'value', value: '2024-01-02T03:04:05.000Z' } }),
          spec('clock', 'time', { default: { kind: 'value', value: '12:30:00' } }),
          spec('code', 'uuid', { default: { kind: 'value', value: '00000000-0000-0000-0000-000000000000' } }),
          spec('tally', 'integer', { nullable: false, default: { kind: 'value', value: 0 }, indexed: true }),
        ],
      },
      {
        kind: 'addColumn',
        table: 'ddl_defaults',
        column: spec('flagged', 'boolean', { default: { kind: 'value', value: false } }),
      },
      {
        kind: 'addColumn',
        table: 'ddl_defaults',
        column: spec('note', 'string', { default: { kind: 'value', value: 'x' }, comment: 'a note' }),
      },
    ],
    after(catalog) {
      assert.equal(catalog.column('ddl_defaults', 'active').is_nullable, false);
      assert.equal(catalog.column('ddl_defaults', 'id').has_auto_increment, true);
      assert.equal(catalog.column('ddl_defaults', 'tally').is_indexed, true);
    },
  },
  {
    name: 'alter-defaults',
    steps: (catalog) => [
      alter(
        catalog,
        'ddl_defaults',
        spec('active', 'boolean', { nullable: false, default: { kind: 'value', value: true } }),
        {
          default: true,
        },
      ),
      alter(catalog, 'ddl_defaults', spec('label', 'string', { maxLength: 30, comment: "Owner's note" }), {
        default: true,
      }),
      alter(catalog, 'ddl_defaults', spec('stamp', 'timestamp', { default: { kind: 'now' } }), { default: true }),
      alter(catalog, 'ddl_defaults', spec('ratio', 'float', { default: { kind: 'value', value: 3 } }), {
        default: true,
      }),
    ],
    after(catalog) {
      assert.equal(catalog.column('ddl_defaults', 'label').default_value, null);
    },
  },
];

function render(statements: DdlStatement[]): string {
  const lines: string[] = [];
  for (const s of statements) {
    lines.push(`${s.sql};`);
    if (s.params?.length) lines.push(`-- params: ${JSON.stringify(s.params)}`);
    for (const u of s.undo ?? []) lines.push(`-- undo: ${u.sql};`);
    if (s.refusal) lines.push(`-- refused as: ${s.refusal}`);
  }
  return `${lines.join('\n')}\n`;
}

for (const client of testClients()) {
  const label = clientLabel(client);
  describe(`golden DDL (${label})`, () => {
    let testDb: TestDb;
    let db: Database;
    const ran: DdlStatement[] = [];
    let executor: SchemaExecutor;

    before(async () => {
      testDb = await createTestDatabase(client);
      db = new Database(testDb.config);
      executor = new SchemaExecutor(db, { onStatement: (s) => ran.push(s) });
    });
    after(async () => {
      await db?.close();
      await testDb?.drop();
    });

    const catalog = async () => catalogOf(await db.dialect.introspect(queryBuilder(db)));

    for (const c of CASES) {
      it(c.name, async () => {
        ran.length = 0;
        const steps = { checks: [], ddl: c.steps(await catalog()), writes: [] };
        assert.ok(formatSteps(steps).split('\n').length === steps.ddl.length);
        if (executor.transactional) await executor.transaction((session) => executor.runIn(session, steps));
        else await executor.runStepwise(steps);
        const file = path.join(GOLDEN, `${c.name}.${label}.sql`);
        const text = render(ran);
        if (process.env.UPDATE_SNAPSHOTS) writeFileSync(file, text);
        assert.equal(text, readFileSync(file, 'utf8'), `${c.name}.${label}.sql`);
        c.after(await catalog(), label);
      });
    }
  });
}
