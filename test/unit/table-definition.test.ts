/**
 * The SQLite CREATE TABLE editor behind table rebuilds (pure: text in, text out), and the printed form of a plan.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { indexColumns, TableDefinition } from '../../src/db/dialects/sqlite/table-definition.js';
import { formatSteps } from '../../src/schema-admin/plan/schema-steps.js';

const GADGETS =
  "CREATE TABLE `gadgets` (`id` integer not null primary key autoincrement, `name` varchar(255) not null default 'x', " +
  '`price` decimal(10, 2) DEFAULT -1.5, `owner` integer, `code` text unique, foreign key(`owner`) references `users`(`id`) on delete SET NULL, ' +
  'CONSTRAINT pair UNIQUE ("name", "code"), check (price > 0))';

describe('SQLite table definition', () => {
  it('writes back what it does not touch as it was written (quoted names in double quotes)', () => {
    assert.equal(
      TableDefinition.parse(GADGETS).toSql(),
      'create table "gadgets" ("id" integer not null primary key autoincrement, "name" varchar(255) not null default \'x\', ' +
        '"price" decimal(10, 2) DEFAULT -1.5, "owner" integer, "code" text unique, foreign key(`owner`) references `users`(`id`) on delete SET NULL, ' +
        'CONSTRAINT pair UNIQUE ("name", "code"), check (price > 0))',
    );
    const generated = TableDefinition.parse(
      'create table t (a integer, b integer generated always as (a * 2) stored, "c" text collate nocase default (lower(\'X\'))) strict',
    );
    assert.equal(generated.generated('b'), true);
    assert.equal(generated.generated('c'), false);
    assert.equal(
      generated.toSql(),
      'create table "t" ("a" integer, "b" integer generated always as (a * 2) stored, "c" text collate nocase default (lower(\'X\'))) strict',
    );
  });

  it('edits clauses: type, not null, default, unique, references, and drops a column with the constraints naming it', () => {
    const table = TableDefinition.parse(GADGETS);
    table.setType('NAME', 'text');
    table.setNotNull('name', false);
    table.setDefault('price', null);
    table.setDefault('owner', '0');
    table.removeUnique('code');
    table.removeForeignKeys('owner');
    table.addReference('owner', 'people', 'pid', 'CASCADE', null);
    table.addColumn('added', 'varchar(20)', ['not null', "default 'a'"]);
    assert.equal(
      table.toSql(),
      'create table "gadgets" ("id" integer not null primary key autoincrement, "name" text default \'x\', "price" decimal(10, 2), ' +
        '"owner" integer default 0 references "people" ("pid") on delete CASCADE, "code" text, "added" varchar(20) not null default \'a\', ' +
        'CONSTRAINT pair UNIQUE ("name", "code"), check (price > 0))',
    );
    table.dropColumn('code');
    assert.equal(
      table.toSql(),
      'create table "gadgets" ("id" integer not null primary key autoincrement, "name" text default \'x\', "price" decimal(10, 2), ' +
        '"owner" integer default 0 references "people" ("pid") on delete CASCADE, "added" varchar(20) not null default \'a\', check (price > 0))',
    );
  });

  it('removes only the foreign keys to the table and column asked for', () => {
    const table = TableDefinition.parse(
      'create table "c" ("a" integer references "p" ("id"), "b" integer, foreign key ("a") references "q" ("id"))',
    );
    table.removeForeignKeys('a', { table: 'Q', column: 'id' });
    assert.equal(table.toSql(), 'create table "c" ("a" integer references "p" ("id"), "b" integer)');
    assert.throws(() => table.column('missing'), /Column missing not found/);
  });

  it('reads the plain columns of an index (expressions are null)', () => {
    assert.deepEqual(indexColumns('CREATE UNIQUE INDEX "x" on "t" ("a" desc, lower(b), c collate nocase)'), [
      'a',
      null,
      'c',
    ]);
  });
});

describe('printed plans', () => {
  it('lists one line per step, checks first, vendor-neutral', () => {
    const column = {
      name: 'title',
      type: 'string' as const,
      maxLength: 80,
      precision: null,
      scale: null,
      nullable: false,
      default: { kind: 'value' as const, value: 'x' },
      primaryKey: false,
      autoIncrement: false,
      unique: true,
      indexed: false,
      comment: null,
    };
    const text = formatSteps({
      checks: [
        {
          kind: 'check',
          query: { count: 'rows', table: 'articles' },
          atMost: 1,
          refusal: { kind: 'invalid', message: 'no' },
        },
      ],
      ddl: [
        { kind: 'addColumn', table: 'articles', column },
        {
          kind: 'addForeignKey',
          key: {
            table: 'articles',
            column: 'author',
            foreign_key_table: 'authors',
            foreign_key_column: 'id',
            constraint_name: null,
            on_delete: 'SET NULL',
            on_update: null,
          },
        },
      ],
      writes: [
        {
          kind: 'updateRows',
          table: 'service_fields',
          where: { collection: 'articles', field: 'title' },
          set: { note: 'n' },
        },
      ],
    });
    assert.equal(
      text,
      [
        'check articles: rows ≤ 1',
        'add column articles.title string(80) not null default "x" unique',
        'add foreign key articles.author → authors.id on delete SET NULL',
        'update service_fields set {"note":"n"} where collection = "articles" and field = "title"',
      ].join('\n'),
    );
  });
});
