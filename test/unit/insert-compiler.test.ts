/** Multi-row INSERTs: placeholders numbered in text order, cut at the parameter limit, shared values bound once. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SqlDialect } from '../../src/sql/dialect-hooks.js';
import { compileInserts, type WriteHooks } from '../../src/sql/write-compiler.js';
import type { WriteDialect } from '../../src/sql/write-hooks.js';
import type { FieldOverview } from '../../src/schema/types.js';

const columns = ['a', 'b', 'c'].map((name) => ({ field: name }) as unknown as FieldOverview);
const rows = [
  { a: 1, b: 'x', c: true },
  { a: 2, b: 'x', c: null },
  { a: 3, b: 'x' },
];

function hooks(numbered: boolean, maxParameters: number): WriteHooks {
  const sql = {
    quote: (name: string) => `"${name}"`,
    placeholder: (n: number) => (numbered ? `$${n}` : '?'),
  } as unknown as SqlDialect;
  const write: WriteDialect = {
    begin: 'begin',
    maxParameters,
    reusesParameters: numbered,
    bind: (_field, value) => value,
    defaultRowInsert: (table) => `insert into ${table} default values`,
    jsonRows: () => '',
    rowsParameter: (values) => values,
  };
  return { sql, write };
}

describe('compileInserts', () => {
  it('numbers placeholders in the order it binds the values', () => {
    const [statement, ...rest] = compileInserts('t', columns, rows, hooks(true, 100), null);
    assert.equal(rest.length, 0);
    assert.equal(statement!.sql, 'insert into "t" ("a", "b", "c") values ($1, $2, $3), ($4, $5, $6), ($7, $8, $9)');
    assert.deepEqual(statement!.params, [1, 'x', true, 2, 'x', null, 3, 'x', null]);
  });

  it('cuts statements at the parameter limit', () => {
    const statements = compileInserts('t', columns, rows, hooks(false, 6), null);
    assert.deepEqual(
      statements.map((s) => s.params.length),
      [6, 3],
    );
    assert.equal(statements[1]!.sql, 'insert into "t" ("a", "b", "c") values (?, ?, ?)');
  });

  it('binds a shared column once per statement where placeholders can be reused', () => {
    const [statement] = compileInserts('t', columns, rows, hooks(true, 100), null, new Set(['b']));
    assert.equal(statement!.sql, 'insert into "t" ("a", "b", "c") values ($2, $1, $3), ($4, $1, $5), ($6, $1, $7)');
    assert.deepEqual(statement!.params, ['x', 1, true, 2, null, 3, null]);
  });

  it('binds a shared column per row where placeholders cannot be reused', () => {
    const [statement] = compileInserts('t', columns, rows, hooks(false, 100), null, new Set(['b']));
    assert.deepEqual(statement!.params, [1, 'x', true, 2, 'x', null, 3, 'x', null]);
  });
});
