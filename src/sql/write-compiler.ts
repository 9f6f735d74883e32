/**
 * INSERT / UPDATE / DELETE (and the key lookups writes need) → statements with bound values. Multi-row statements
 * are cut so that none carries more parameters than the dialect allows; everything else about a vendor comes from
 * its hooks. Values arrive in logical form (plan/write-values.ts) and are bound by the dialect's write hooks.
 */
import type { PlannedFilter } from '../plan/read-plan.js';
import type { FieldOverview } from '../schema/types.js';
import type { SqlDialect } from './dialect-hooks.js';
import { compileFilter } from './filter-compiler.js';
import { Statement, type CompiledStatement } from './statement.js';
import type { WriteDialect } from './write-hooks.js';

export interface WriteHooks {
  sql: SqlDialect;
  write: WriteDialect;
}

export type Key = string | number;

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  const step = Math.max(1, size);
  for (let i = 0; i < items.length; i += step) out.push(items.slice(i, i + step));
  return out;
}

/**
 * Rows that set the same columns, as few multi-row INSERTs as the parameter limit allows. With `returning`, each
 * statement returns that column of the inserted rows (RETURNING exists on PostgreSQL, SQLite ≥ 3.35, MariaDB ≥ 10.5).
 */
export function compileInserts(
  table: string,
  columns: readonly FieldOverview[],
  rows: readonly Record<string, unknown>[],
  hooks: WriteHooks,
  returning: KeyColumns | null,
  shared?: ReadonlySet<string>,
): CompiledStatement[] {
  const q = hooks.sql.quote;
  const tail = returning
    ? ` returning ${(Array.isArray(returning) ? (returning as readonly FieldOverview[]) : [returning as FieldOverview]).map((c) => q(c.field)).join(', ')}`
    : '';
  if (columns.length === 0) return rows.map(() => ({ sql: hooks.write.defaultRowInsert(q(table)) + tail, params: [] }));
  const head = `insert into ${q(table)} (${columns.map((c) => q(c.field)).join(', ')}) values `;
  // Values are bound in text order, so placeholders are numbered as written: no markers to renumber afterwards (on a
  // 10,000-row insert, the marker pass cost as much as the database's work).
  const { bind } = hooks.write;
  const { placeholder } = hooks.sql;
  // Columns whose value every row shares (`shared`) are bound once per statement where placeholders can be reused.
  const once = hooks.write.reusesParameters ? columns.filter((c) => shared?.has(c.field)) : [];
  const perRow = columns.length - once.length;
  return chunks(rows, Math.floor((hooks.write.maxParameters - once.length) / Math.max(1, perRow))).map((chunk) => {
    const params: unknown[] = [];
    const reused = new Map<string, string>();
    for (const column of once) {
      params.push(bind(column, chunk[0]![column.field] ?? null));
      reused.set(column.field, placeholder(params.length));
    }
    const values: string[] = [];
    for (const row of chunk) {
      let tuple = '(';
      for (let i = 0; i < columns.length; i++) {
        const column = columns[i]!;
        let mark = reused.get(column.field);
        if (mark === undefined) {
          params.push(bind(column, row[column.field] ?? null));
          mark = placeholder(params.length);
        }
        tuple += (i === 0 ? '' : ', ') + mark;
      }
      values.push(tuple + ')');
    }
    return { sql: head + values.join(', ') + tail, params };
  });
}

/**
 * The columns rows are addressed by: one key column (keys are its values), or the columns of a composite key (keys
 * are tuples of their values, in the same order; every column is matched, never the first alone).
 */
export type KeyColumns = FieldOverview | readonly FieldOverview[];
/** One key for `KeyColumns`: a value, or a tuple for a composite key. */
export type KeyValue = Key | readonly Key[];

/** `update t set a = ?, b = ? where <key matches>`: the same values on every row of `keys`. */
export function compileUpdates(
  table: string,
  values: readonly [FieldOverview, unknown][],
  keyField: KeyColumns,
  keys: readonly KeyValue[],
  hooks: WriteHooks,
): CompiledStatement[] {
  const q = hooks.sql.quote;
  return chunks(keys, Math.floor((hooks.write.maxParameters - values.length) / width(keyField))).map((chunk) => {
    const st = new Statement(hooks.sql);
    const set = values
      .map(([field, value]) => `${q(field.field)} = ${st.param(hooks.write.bind(field, value))}`)
      .join(', ');
    return st.finish(`update ${q(table)} set ${set} where ${keyMatch(chunk, keyField, st, hooks, '')}`);
  });
}

export function compileDeletes(
  table: string,
  keyField: KeyColumns,
  keys: readonly KeyValue[],
  hooks: WriteHooks,
): CompiledStatement[] {
  const q = hooks.sql.quote;
  return chunks(keys, Math.floor(hooks.write.maxParameters / width(keyField))).map((chunk) => {
    const st = new Statement(hooks.sql);
    return st.finish(`delete from ${q(table)} where ${keyMatch(chunk, keyField, st, hooks, '')}`);
  });
}

/** `select key from t where key in (...)`: which of `keys` exist (composite keys: columns `key0`, `key1`, ...). */
export function compileKeyLookups(
  table: string,
  keyField: KeyColumns,
  keys: readonly KeyValue[],
  hooks: WriteHooks,
): CompiledStatement[] {
  const q = hooks.sql.quote;
  return chunks(keys, Math.floor(hooks.write.maxParameters / width(keyField))).map((chunk) => {
    const st = new Statement(hooks.sql);
    return st.finish(
      `select ${keySelect(keyField, hooks, '')} from ${q(table)} where ${keyMatch(chunk, keyField, st, hooks, '')}`,
    );
  });
}

/**
 * `select key, case when <rule> then 1 else 0 end as allowed from t where key in (...)`: which of `keys` exist, and
 * whether each satisfies a caller's item rule — one lookup tells a missing row from a forbidden one (both refused).
 */
export function compileGuardedKeyLookups(
  table: string,
  keyField: KeyColumns,
  keys: readonly KeyValue[],
  guard: PlannedFilter,
  hooks: WriteHooks,
): CompiledStatement[] {
  const q = hooks.sql.quote;
  return chunks(keys, Math.floor(hooks.write.maxParameters / 2 / width(keyField))).map((chunk) => {
    const st = new Statement(hooks.sql);
    const row = st.alias();
    const allowed = `case when ${compileFilter(guard, st, row)} then 1 else 0 end`;
    return st.finish(
      `select ${keySelect(keyField, hooks, `${row}.`)}, ${allowed} as ${q('allowed')} from ${q(table)} as ${row} where ${keyMatch(chunk, keyField, st, hooks, `${row}.`)}`,
    );
  });
}

/** `select key, fk from t where fk in (...)`: the rows that currently point at each of `parents`. */
export function compileChildLookups(
  table: string,
  keyField: KeyColumns,
  foreignKey: FieldOverview,
  parents: readonly Key[],
  hooks: WriteHooks,
): CompiledStatement[] {
  const q = hooks.sql.quote;
  return chunks(parents, hooks.write.maxParameters).map((chunk) => {
    const st = new Statement(hooks.sql);
    return st.finish(
      `select ${keySelect(keyField, hooks, '')}, ${q(foreignKey.field)} as ${q('parent')} from ${q(table)} where ${keyMatch(chunk, foreignKey, st, hooks, '')}`,
    );
  });
}

/**
 * `select key from child where fk in (...)`: the rows of `table` whose foreign key `foreignKey` refers to one of the
 * parent rows `parentKeys` — through their key, or (`referenced`) through another column of the parent table.
 */
export function compileDependentLookups(
  table: string,
  keyField: KeyColumns,
  foreignKey: FieldOverview,
  parent: { table: string; keyField: KeyColumns; referenced: FieldOverview | null },
  parentKeys: readonly KeyValue[],
  hooks: WriteHooks,
): CompiledStatement[] {
  const q = hooks.sql.quote;
  return chunks(parentKeys, Math.floor(hooks.write.maxParameters / width(parent.keyField))).map((chunk) => {
    const st = new Statement(hooks.sql);
    const match = parent.referenced
      ? `${q(foreignKey.field)} in (select ${q(parent.referenced.field)} from ${q(parent.table)} where ${keyMatch(chunk, parent.keyField, st, hooks, '')})`
      : keyMatch(chunk, foreignKey, st, hooks, '');
    return st.finish(`select ${keySelect(keyField, hooks, '')} from ${q(table)} where ${match}`);
  });
}

/** The key of the one row of a singleton collection, if any. */
export function compileFirstKey(table: string, keyField: KeyColumns, hooks: WriteHooks): CompiledStatement {
  const q = hooks.sql.quote;
  const st = new Statement(hooks.sql);
  return st.finish(
    `select ${keySelect(keyField, hooks, '')} from ${q(table)}${hooks.sql.limitOffset(1, 0, (v) => st.param(v))}`,
  );
}

function width(keyField: KeyColumns): number {
  return Array.isArray(keyField) ? Math.max(1, keyField.length) : 1;
}

/** The key column(s) as `key`, or for a composite key `key0`, `key1`, ... */
function keySelect(keyField: KeyColumns, hooks: WriteHooks, prefix: string): string {
  const q = hooks.sql.quote;
  if (!Array.isArray(keyField)) return `${prefix}${q((keyField as FieldOverview).field)} as ${q('key')}`;
  return keyField.map((field, i) => `${prefix}${q(field.field)} as ${q(`key${i}`)}`).join(', ');
}

/** `key in (...)`, or for a composite key `(a = ? and b = ?) or (...)` (row values in IN lists are not portable). */
function keyMatch(
  keys: readonly KeyValue[],
  keyField: KeyColumns,
  st: Statement,
  hooks: WriteHooks,
  prefix: string,
): string {
  const q = hooks.sql.quote;
  if (!Array.isArray(keyField)) {
    const field = keyField as FieldOverview;
    return `${prefix}${q(field.field)} in (${keys.map((key) => st.param(hooks.write.bind(field, key))).join(', ')})`;
  }
  const columns = keyField as readonly FieldOverview[];
  const tuples = keys.map((key) => {
    const parts = key as readonly Key[];
    return `(${columns.map((field, i) => `${prefix}${q(field.field)} = ${st.param(hooks.write.bind(field, parts[i]))}`).join(' and ')})`;
  });
  return tuples.length === 1 ? tuples[0]! : `(${tuples.join(' or ')})`;
}
