/**
 * SQL snapshots of the write compiler per dialect, and the cutting of multi-row statements at the parameter limit.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mysqlSql } from '../../src/db/dialects/mysql/sql-hooks.js';
import { mysqlWrite } from '../../src/db/dialects/mysql/write-hooks.js';
import { postgresSql } from '../../src/db/dialects/postgres/sql-hooks.js';
import { postgresWrite } from '../../src/db/dialects/postgres/write-hooks.js';
import { sqliteSql } from '../../src/db/dialects/sqlite/sql-hooks.js';
import { sqliteWrite } from '../../src/db/dialects/sqlite/write-hooks.js';
import {
  compileChildLookups,
  compileDeletes,
  compileFirstKey,
  compileGuardedKeyLookups,
  compileInserts,
  compileKeyLookups,
  compileUpdates,
  type WriteHooks,
} from '../../src/sql/write-compiler.js';
import { SMALL_SCHEMA } from '../helpers/small-schema.js';

const HOOKS: Record<string, WriteHooks> = {
  postgres: { sql: postgresSql, write: postgresWrite },
  mysql: { sql: mysqlSql, write: mysqlWrite },
  sqlite: { sql: sqliteSql, write: sqliteWrite },
};
const fields = SMALL_SCHEMA.collections.articles!.fields;
const [id, title, published, updated] = [fields.id!, fields.title!, fields.published!, fields.updated_at!];

describe('write compiler SQL', () => {
  it('multi-row INSERT with RETURNING of the key, values bound per dialect', () => {
    const rows = [
      { title: 'a', published: true, updated_at: '2024-01-02T03:04:05.006Z' },
      { title: 'b', published: false, updated_at: null },
    ];
    const compiled = Object.fromEntries(
      Object.entries(HOOKS).map(([name, hooks]) => [
        name,
        compileInserts('articles', [title, published, updated], rows, hooks, id),
      ]),
    );
    assert.deepEqual(compiled, {
      postgres: [
        {
          sql: 'insert into "articles" ("title", "published", "updated_at") values ($1, $2, $3), ($4, $5, $6) returning "id"',
          params: ['a', true, '2024-01-02T03:04:05.006Z', 'b', false, null],
        },
      ],
      mysql: [
        {
          sql: 'insert into `articles` (`title`, `published`, `updated_at`) values (?, ?, ?), (?, ?, ?) returning `id`',
          params: ['a', 1, '2024-01-02 03:04:05.006', 'b', 0, null],
        },
      ],
      sqlite: [
        {
          sql: 'insert into "articles" ("title", "published", "updated_at") values (?, ?, ?), (?, ?, ?) returning "id"',
          params: ['a', 1, '2024-01-02T03:04:05.006Z', 'b', 0, null],
        },
      ],
    });
  });

  it('cuts INSERTs and key lists so that no statement passes the parameter limit', () => {
    const small: WriteHooks = { sql: sqliteSql, write: { ...sqliteWrite, maxParameters: 5 } };
    const rows = Array.from({ length: 5 }, (_, i) => ({ title: `t${i}`, published: i % 2 === 0 }));
    const inserts = compileInserts('articles', [title, published], rows, small, null);
    assert.deepEqual(
      inserts.map((s) => s.params.length),
      [4, 4, 2],
    );
    assert.equal(inserts[2]!.sql, 'insert into "articles" ("title", "published") values (?, ?)');
    const updates = compileUpdates('articles', [[title, 'x']], id, [1, 2, 3, 4, 5, 6], small);
    assert.deepEqual(
      updates.map((s) => s.params),
      [
        ['x', 1, 2, 3, 4],
        ['x', 5, 6],
      ],
    );
    assert.equal(compileDeletes('articles', id, [1, 2, 3, 4, 5, 6], small).length, 2);
  });

  it('UPDATE, DELETE and the lookups of keys, children and a singleton', () => {
    const pg = HOOKS.postgres!;
    assert.deepEqual(
      compileUpdates(
        'articles',
        [
          [title, 'x'],
          [published, null],
        ],
        id,
        [1, 2],
        pg,
      ),
      [
        {
          sql: 'update "articles" set "title" = $1, "published" = $2 where "id" in ($3, $4)',
          params: ['x', null, 1, 2],
        },
      ],
    );
    assert.deepEqual(compileDeletes('articles', id, [3], HOOKS.mysql!), [
      { sql: 'delete from `articles` where `id` in (?)', params: [3] },
    ]);
    assert.deepEqual(compileKeyLookups('articles', id, [1, 2], pg), [
      { sql: 'select "id" as "key" from "articles" where "id" in ($1, $2)', params: [1, 2] },
    ]);
    assert.deepEqual(compileChildLookups('articles', id, fields.rating!, [7], HOOKS.sqlite!), [
      { sql: 'select "id" as "key", "rating" as "parent" from "articles" where "rating" in (?)', params: [7] },
    ]);
    assert.deepEqual(compileFirstKey('articles', id, pg), {
      sql: 'select "id" as "key" from "articles" limit $1',
      params: [1],
    });
    assert.deepEqual(compileInserts('articles', [], [{}, {}], HOOKS.mysql!, id), [
      { sql: 'insert into `articles` () values () returning `id`', params: [] },
      { sql: 'insert into `articles` () values () returning `id`', params: [] },
    ]);
  });

  it('key lookups guarded by an item rule say per key whether the rule holds', () => {
    const rule = {
      kind: 'compare' as const,
      operand: { kind: 'field' as const, field: fields.rating! },
      field: fields.rating!,
      operator: '_gte' as const,
      value: 3,
    };
    assert.deepEqual(compileGuardedKeyLookups('articles', id, [1, 2], rule, HOOKS.postgres!), [
      {
        sql: 'select "t0"."id" as "key", case when "t0"."rating" >= $1 then 1 else 0 end as "allowed" from "articles" as "t0" where "t0"."id" in ($2, $3)',
        params: [3, 1, 2],
      },
    ]);
    assert.deepEqual(compileGuardedKeyLookups('articles', id, [5], { kind: 'constant', value: false }, HOOKS.mysql!), [
      {
        sql: 'select `t0`.`id` as `key`, case when 1 = 0 then 1 else 0 end as `allowed` from `articles` as `t0` where `t0`.`id` in (?)',
        params: [5],
      },
    ]);
  });

  it('matches every column of a composite key, never the first alone', () => {
    const rating = fields.rating!;
    assert.deepEqual(
      compileDeletes(
        'articles',
        [id, rating],
        [
          [1, 5],
          [2, 3],
        ],
        HOOKS.postgres!,
      ),
      [
        {
          sql: 'delete from "articles" where (("id" = $1 and "rating" = $2) or ("id" = $3 and "rating" = $4))',
          params: [1, 5, 2, 3],
        },
      ],
    );
    assert.deepEqual(compileUpdates('articles', [[title, 'x']], [id, rating], [[1, 5]], HOOKS.mysql!), [
      { sql: 'update `articles` set `title` = ? where (`id` = ? and `rating` = ?)', params: ['x', 1, 5] },
    ]);
    assert.deepEqual(compileKeyLookups('articles', [id, rating], [[1, 5]], HOOKS.sqlite!), [
      {
        sql: 'select "id" as "key0", "rating" as "key1" from "articles" where ("id" = ? and "rating" = ?)',
        params: [1, 5],
      },
    ]);
    // Chunks hold whole keys: two parameters per key.
    const small = { ...HOOKS.postgres!, write: { ...HOOKS.postgres!.write, maxParameters: 4 } };
    assert.deepEqual(
      compileDeletes(
        'articles',
        [id, rating],
        [
          [1, 1],
          [2, 2],
          [3, 3],
        ],
        small,
      ).map((s) => s.params),
      [
        [1, 1, 2, 2],
        [3, 3],
      ],
    );
  });

  it('binds booleans into non-boolean PostgreSQL columns as their column takes them', () => {
    const asInteger = { ...published, schema: { ...published.schema!, data_type: 'integer' } };
    const asText = { ...published, schema: { ...published.schema!, data_type: 'text' } };
    assert.deepEqual(
      [postgresWrite.bind(asInteger, true), postgresWrite.bind(asText, false), postgresWrite.bind(published, true)],
      [1, 'false', true],
    );
  });
});
