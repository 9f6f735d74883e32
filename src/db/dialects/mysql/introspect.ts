/** MySQL/MariaDB information_schema → TableInfo[] for the current database, a handful of queries in all. */
import type { Knex } from 'knex';
import type { ColumnInfo, ForeignKeyInfo, ServiceType, TableInfo } from '../../../schema/types.js';
import {
  applyIndexesAndKeys,
  emptyColumn,
  groupBy,
  normalizeAction,
  parseDefaultValue,
  toNumber,
  type IndexColumn,
  type CatalogRow,
} from '../../introspection-utils.js';

/** The full column type (`tinyint(1)`) decides booleans; kept beside the ColumnInfo, not in it. */
const columnTypes = new WeakMap<ColumnInfo, string>();

async function rows(knex: Knex, sql: string): Promise<CatalogRow[]> {
  const [result] = await knex.raw(sql);
  return result as CatalogRow[];
}

export async function introspectMysql(knex: Knex): Promise<TableInfo[]> {
  const [tables, columns, indexes, foreignKeys, checks] = await Promise.all([
    rows(
      knex,
      `select table_name as name, table_comment as comment, table_type from information_schema.tables
      where table_schema = database() and table_type in ('BASE TABLE', 'VIEW') order by table_name`,
    ),
    rows(
      knex,
      `select table_name, column_name, data_type, column_type, character_maximum_length, numeric_precision,
        numeric_scale, collation_name, is_nullable, column_default, extra, generation_expression, column_comment, ordinal_position
      from information_schema.columns where table_schema = database() order by table_name, ordinal_position`,
    ),
    rows(
      knex,
      `select table_name, index_name, column_name, seq_in_index, non_unique
      from information_schema.statistics where table_schema = database()`,
    ),
    rows(
      knex,
      `select k.table_name, k.column_name, k.referenced_table_name, k.referenced_column_name,
        k.constraint_name, r.update_rule, r.delete_rule
      from information_schema.key_column_usage k
      join information_schema.referential_constraints r
        on r.constraint_schema = k.constraint_schema and r.constraint_name = k.constraint_name and r.table_name = k.table_name
      where k.table_schema = database() and k.referenced_table_name is not null`,
    ),
    // MariaDB's JSON is LONGTEXT with a json_valid() check; MySQL 8 has no table_name here, hence the fallback.
    rows(
      knex,
      `select table_name, constraint_name, check_clause from information_schema.check_constraints
      where constraint_schema = database()`,
    ).catch(() => [] as CatalogRow[]),
  ]);

  const jsonColumns = new Set(
    checks
      .map((c) => /^json_valid\(`?([^`)]+)`?\)$/i.exec(String(c.check_clause ?? c.CHECK_CLAUSE ?? '').trim())?.[1])
      .map((column, i) => (column ? `${lower(checks[i]!).table_name}\u0000${column}` : ''))
      .filter(Boolean),
  );

  const columnsByTable = groupBy(columns.map(lower), (r) => r.table_name);
  const indexesByTable = groupBy(indexes.map(lower), (r) => r.table_name);
  const keyRows = foreignKeys.map(lower);
  const fksByTable = groupBy(keyRows, (r) => r.table_name);
  // Every column of a foreign key is a row here: a key of several columns is counted from them (a correlated count
  // over key_column_usage made this query take ~70 ms instead of ~5 on MariaDB).
  const keyOf = (table: string, constraint: string) => `${table}\u0000${constraint}`;
  const keyColumns = new Map<string, number>();
  for (const r of keyRows) {
    const key = keyOf(r.table_name, r.constraint_name);
    keyColumns.set(key, (keyColumns.get(key) ?? 0) + 1);
  }

  return tables.map(lower).map((table) => {
    const name = table.name as string;
    const cols = (columnsByTable.get(name) ?? []).map((r) =>
      toColumn(name, r, jsonColumns.has(`${name}\u0000${r.column_name}`)),
    );
    const fks: ForeignKeyInfo[] = (fksByTable.get(name) ?? [])
      .filter((r) => keyColumns.get(keyOf(name, r.constraint_name)) === 1)
      .map((r) => ({
        table: name,
        column: r.column_name,
        foreign_key_table: r.referenced_table_name,
        foreign_key_column: r.referenced_column_name,
        constraint_name: r.constraint_name,
        on_update: normalizeAction(r.update_rule),
        on_delete: normalizeAction(r.delete_rule),
      }));
    const idx: IndexColumn[] = (indexesByTable.get(name) ?? []).map((r) => ({
      table: name,
      index: r.index_name,
      column: r.column_name ?? '',
      position: Number(r.seq_in_index),
      unique: Number(r.non_unique) === 0,
      primary: r.index_name === 'PRIMARY',
    }));
    const primary = applyIndexesAndKeys(cols, idx, fks);
    const view = table.table_type === 'VIEW';
    return {
      name,
      comment: view ? null : table.comment || null,
      columns: cols,
      primary_key: primary,
      foreign_keys: fks,
      view,
    };
  });
}

/** information_schema column names come back upper-case on MySQL 8 and MariaDB alike unless aliased. */
function lower(row: CatalogRow): CatalogRow {
  const out: CatalogRow = {};
  for (const [k, v] of Object.entries(row)) out[k.toLowerCase()] = v;
  return out;
}

function toColumn(table: string, r: CatalogRow, isJson: boolean): ColumnInfo {
  const column = emptyColumn(table, r.column_name);
  const extra = String(r.extra ?? '').toLowerCase();
  column.data_type = isJson ? 'json' : String(r.data_type).toLowerCase();
  column.max_length = ['varchar', 'char'].includes(column.data_type) ? toNumber(r.character_maximum_length) : null;
  column.numeric_precision = toNumber(r.numeric_precision);
  column.numeric_scale = toNumber(r.numeric_scale);
  // Values compared with this column must have its collation (or a coercible one) for MariaDB to compare them at all,
  // and the same one for the column's index to serve the comparison.
  column.collation = typeof r.collation_name === 'string' ? r.collation_name : null;
  column.is_nullable = r.is_nullable === 'YES';
  column.has_auto_increment = extra.includes('auto_increment');
  column.is_generated = extra.includes('generated') && !extra.includes('default_generated');
  column.generation_expression = column.is_generated ? r.generation_expression || null : null;
  column.default_value = column.is_generated ? null : mysqlDefault(r.column_default);
  // MySQL 8 writes literal string defaults unquoted; MariaDB quotes them. Both parse to the same value.
  if (typeof column.default_value === 'string' && /^current_timestamp/i.test(column.default_value))
    column.default_value = 'CURRENT_TIMESTAMP';
  column.comment = r.column_comment || null;
  columnTypes.set(column, String(r.column_type).toLowerCase());
  if (column.data_type === 'enum' || column.data_type === 'set')
    column.enum_values = { values: enumValues(String(r.column_type)), many: column.data_type === 'set' };
  return column;
}

/** `enum('a','it''s')` → ['a', "it's"] (MariaDB doubles quotes inside the list). */
function enumValues(columnType: string): string[] {
  const inner = /^(?:enum|set)\((.*)\)$/is.exec(columnType.trim())?.[1] ?? '';
  return [...inner.matchAll(/'((?:[^']|'')*)'/g)].map((m) => m[1]!.replace(/''/g, "'"));
}

/** An integer column declared `unsigned` (its values reach 2^64 - 1). */
export function isUnsignedColumn(column: ColumnInfo): boolean {
  return / unsigned/.test(columnTypes.get(column) ?? '');
}

export function mapMysqlType(column: ColumnInfo): ServiceType {
  const columnType = columnTypes.get(column) ?? '';
  switch (column.data_type) {
    case 'tinyint':
      return columnType.startsWith('tinyint(1)') ? 'boolean' : 'integer';
    case 'bit':
      return columnType === 'bit(1)' ? 'boolean' : 'integer';
    case 'int':
    case 'integer':
    case 'smallint':
    case 'mediumint':
    case 'year':
      return 'integer';
    case 'bigint':
      return 'bigInteger';
    case 'decimal':
    case 'numeric':
      return 'decimal';
    case 'float':
    case 'double':
    case 'real':
      return 'float';
    case 'varchar':
    case 'char':
    case 'enum':
    case 'set':
      return 'string';
    case 'text':
    case 'tinytext':
    case 'mediumtext':
    case 'longtext':
      return 'text';
    case 'json':
      return 'json';
    case 'date':
      return 'date';
    case 'datetime':
      return 'dateTime';
    case 'timestamp':
      return 'timestamp';
    case 'time':
      return 'time';
    case 'binary':
    case 'varbinary':
    case 'blob':
    case 'tinyblob':
    case 'mediumblob':
    case 'longblob':
      return 'binary';
    case 'geometry':
    case 'point':
    case 'linestring':
    case 'polygon':
    case 'multipoint':
    case 'multilinestring':
    case 'multipolygon':
      return 'geometry';
    default:
      return 'unknown';
  }
}

const ESCAPES: Record<string, string> = {
  '0': '\u0000',
  b: '\b',
  n: '\n',
  r: '\r',
  t: '\t',
  Z: '\u001a',
  '%': '\\%',
  _: '\\_',
};

/**
 * MariaDB writes a string default as the SQL literal, escapes included (`'C:\\temp'` for C:\temp, `\n` for a
 * newline, `''` for a quote); read as plain text, every backslash would double on each change of the column.
 * MySQL 8 writes the text bare, and other defaults (numbers, functions) parse as on every database.
 */
export function mysqlDefault(raw: unknown): unknown {
  if (typeof raw !== 'string') return parseDefaultValue(raw);
  const quoted = /^'((?:[^'\\]|''|\\.)*)'$/s.exec(raw.trim());
  if (!quoted) return parseDefaultValue(raw);
  return quoted[1]!.replace(/''|\\(.)/gs, (match, ch: string | undefined) =>
    match === "''" ? "'" : (ESCAPES[ch!] ?? ch!),
  );
}
