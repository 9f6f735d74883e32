/**
 * Driver errors → DatabaseFailure for the error shapes each driver produces (the API tests trigger the common ones
 * on real databases; these cover the rarer numbers and message forms).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { translateMysqlError } from '../../src/db/dialects/mysql/error-translation.js';
import { translatePostgresError } from '../../src/db/dialects/postgres/error-translation.js';
import { translateSqliteError } from '../../src/db/dialects/sqlite/error-translation.js';

const pick = (f: ReturnType<typeof translateMysqlError>) =>
  f && { kind: f.kind, table: f.table, column: f.column, value: f.value, referenced: f.referenced ?? false };

describe('PostgreSQL errors', () => {
  it('reads the column from the error or its detail', () => {
    assert.deepEqual(
      pick(
        translatePostgresError({
          code: '23505',
          table: 'tags',
          detail: 'Key (name)=(science) already exists.',
          message: 'duplicate key',
        }),
      ),
      { kind: 'unique', table: 'tags', column: 'name', value: 'science', referenced: false },
    );
    assert.deepEqual(
      pick(
        translatePostgresError({ code: '23505', table: 't', detail: 'Key (a, b)=(1, 2) already exists.', message: '' }),
      ),
      { kind: 'unique', table: 't', column: null, value: null, referenced: false },
    );
    assert.deepEqual(
      pick(
        translatePostgresError({
          code: '23503',
          table: 'citations',
          detail: 'Key (id)=(7) is still referenced from table "citations".',
          message: '',
        }),
      ),
      { kind: 'foreign_key', table: 'citations', column: 'id', value: null, referenced: true },
    );
    assert.deepEqual(pick(translatePostgresError({ code: '23502', table: 'articles', column: 'title', message: '' })), {
      kind: 'not_null',
      table: 'articles',
      column: 'title',
      value: null,
      referenced: false,
    });
    assert.equal(
      translatePostgresError({ code: '22001', message: 'value too long for type character varying(20)' })!.maxLength,
      20,
    );
    assert.equal(
      translatePostgresError({ code: '22003', message: 'value "3000000000" is out of range for type integer' })!.value,
      '3000000000',
    );
    assert.equal(translatePostgresError({ code: '22003', message: 'numeric field overflow' })!.value, null);
    assert.deepEqual(
      pick(
        translatePostgresError({
          code: '428C9',
          table: 'x',
          message: 'cannot insert a non-DEFAULT value into column "id"',
        }),
      ),
      { kind: 'read_only', table: 'x', column: 'id', value: null, referenced: false },
    );
    assert.equal(
      translatePostgresError({ code: '22P02', message: 'invalid input syntax for type integer: "abc"' })!.value,
      'abc',
    );
  });

  it('leaves other errors alone', () => {
    assert.equal(translatePostgresError({ code: '42P01', message: 'relation does not exist' }), null);
    assert.equal(translatePostgresError(new Error('boom')), null);
  });
});

describe('MySQL / MariaDB errors', () => {
  it('reads the column from the message', () => {
    assert.deepEqual(pick(translateMysqlError({ errno: 1062, message: "Duplicate entry 'science' for key 'name'" })), {
      kind: 'unique',
      table: null,
      column: null,
      value: 'science',
      referenced: false,
    });
    const fk =
      'Cannot add or update a child row: a foreign key constraint fails (`db`.`articles`, CONSTRAINT `articles_author_foreign` FOREIGN KEY (`author`) REFERENCES `authors` (`id`) ON DELETE SET NULL)';
    assert.deepEqual(pick(translateMysqlError({ errno: 1452, message: fk })), {
      kind: 'foreign_key',
      table: 'articles',
      column: 'author',
      value: null,
      referenced: false,
    });
    const parent =
      'Cannot delete or update a parent row: a foreign key constraint fails (`db`.`citations`, CONSTRAINT `c` FOREIGN KEY (`article`) REFERENCES `articles` (`id`))';
    assert.deepEqual(pick(translateMysqlError({ errno: 1451, message: parent })), {
      kind: 'foreign_key',
      table: null,
      column: 'id',
      value: null,
      referenced: true,
    });
    assert.equal(translateMysqlError({ errno: 1048, message: "Column 'title' cannot be null" })!.column, 'title');
    assert.deepEqual(
      [
        translateMysqlError({ errno: 1364, message: "Field 'title' doesn't have a default value" })!.kind,
        translateMysqlError({ errno: 1364, message: "Field 'title' doesn't have a default value" })!.column,
      ],
      ['not_null', 'title'],
    );
    assert.equal(
      translateMysqlError({ errno: 1406, message: "Data too long for column 'slug' at row 1" })!.column,
      'slug',
    );
    assert.equal(
      translateMysqlError({ errno: 1264, message: "Out of range value for column 'rating' at row 1" })!.kind,
      'out_of_range',
    );
    assert.equal(
      translateMysqlError({
        errno: 1366,
        message: "Incorrect integer value: 'x' for column `db`.`t`.`rating` at row 1",
      })!.kind,
      'invalid_value',
    );
    assert.equal(translateMysqlError({ errno: 1146, message: "Table 'x' doesn't exist" }), null);
  });
});

describe('SQLite errors', () => {
  it('reads table and column from the message', () => {
    assert.deepEqual(
      pick(translateSqliteError({ code: 'SQLITE_CONSTRAINT_UNIQUE', message: 'UNIQUE constraint failed: tags.name' })),
      { kind: 'unique', table: 'tags', column: 'name', value: null, referenced: false },
    );
    assert.equal(
      translateSqliteError({ code: 'SQLITE_CONSTRAINT_UNIQUE', message: 'UNIQUE constraint failed: t.a, t.b' })!.column,
      null,
    );
    assert.equal(
      translateSqliteError({
        code: 'SQLITE_CONSTRAINT_NOTNULL',
        message: 'NOT NULL constraint failed: articles.title',
      })!.column,
      'title',
    );
    assert.equal(
      translateSqliteError({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY', message: 'FOREIGN KEY constraint failed' })!.kind,
      'foreign_key',
    );
    assert.equal(
      translateSqliteError({ code: 'SQLITE_CONSTRAINT_TRIGGER', message: 'FOREIGN KEY constraint failed' })!.kind,
      'foreign_key',
    );
    assert.equal(translateSqliteError({ code: 'SQLITE_ERROR', message: 'no such table: x' }), null);
  });
});

describe('CHECK constraint errors', () => {
  const check = (f: ReturnType<typeof translateMysqlError>) =>
    f && { kind: f.kind, constraint: f.constraint ?? null, names: f.checkNames ?? [] };

  it('read the constraint where the driver names it', () => {
    const pg = {
      code: '23514',
      table: 'gauges',
      constraint: 'gauges_level_check',
      message: 'new row for relation "gauges" violates check constraint "gauges_level_check"',
    };
    assert.deepEqual(check(translatePostgresError(pg)), {
      kind: 'check',
      constraint: 'gauges_level_check',
      names: [],
    });
    assert.equal(translatePostgresError({ ...pg, constraint: undefined })!.constraint, 'gauges_level_check');
    assert.deepEqual(
      check(translateMysqlError({ errno: 4025, message: 'CONSTRAINT `gauges.level` failed for `db`.`gauges`' })),
      {
        kind: 'check',
        constraint: 'gauges.level',
        names: [],
      },
    );
    assert.equal(
      translateMysqlError({ errno: 3819, message: "Check constraint 'gauges_chk_1' is violated." })!.constraint,
      'gauges_chk_1',
    );
    assert.deepEqual(
      check(
        translateSqliteError({ code: 'SQLITE_CONSTRAINT_CHECK', message: 'CHECK constraint failed: gauges_range' }),
      ),
      { kind: 'check', constraint: 'gauges_range', names: [] },
    );
  });

  it("read an unnamed SQLite check's identifiers, not its strings", () => {
    const failed = translateSqliteError({
      code: 'SQLITE_CONSTRAINT_CHECK',
      message: `CHECK constraint failed: "level" >= 0 and kind <> 'low level'`,
    });
    assert.deepEqual(check(failed), { kind: 'check', constraint: null, names: ['level', 'and', 'kind'] });
  });
});
