/** SQLite: sqlite_master + PRAGMA table_xinfo / index_list / index_info / foreign_key_list, per table (in-process). */
import type { Knex } from 'knex';
import { isRandomUuidSql } from './uuid-default.js';
import type { ColumnInfo, ForeignKeyInfo, ServiceType, TableInfo } from '../../../schema/types.js';
import {
  applyIndexesAndKeys,
  emptyColumn,
  normalizeAction,
  parseDefaultValue,
  type IndexColumn,
  type CatalogRow,
} from '../../introspection-utils.js';

export async function introspectSqlite(knex: Knex): Promise<TableInfo[]> {
  const tables = (await knex.raw(
    `select name, sql, type from sqlite_master where type in ('table', 'view') and name not like 'sqlite\\_%' escape '\\' and name not like 'knex\\_%' escape '\\' order by name`,
  )) as CatalogRow[];
  const result: TableInfo[] = [];
  for (const table of tables) {
    const name = table.name as string;
    const quoted = `"${name.replace(/"/g, '""')}"`;
    const info = (await knex.raw(`pragma table_xinfo(${quoted})`)) as CatalogRow[];
    const indexList = (await knex.raw(`pragma index_list(${quoted})`)) as CatalogRow[];
    const fkList = (await knex.raw(`pragma foreign_key_list(${quoted})`)) as CatalogRow[];

    const pkColumns = info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
    const createSql = String(table.sql ?? '');
    const columns = info.map((c) => toColumn(name, c, pkColumns.length, createSql));

    const indexes: IndexColumn[] = [];
    for (const index of indexList) {
      const parts = (await knex.raw(`pragma index_info("${String(index.name).replace(/"/g, '""')}")`)) as CatalogRow[];
      for (const part of parts) {
        // An expression part has no column name; it still decides which column comes first.
        indexes.push({
          table: name,
          index: index.name,
          column: part.name ?? '',
          position: part.seqno,
          unique: index.unique === 1 && index.partial !== 1,
          primary: index.origin === 'pk',
        });
      }
    }
    // A rowid primary key has no index entry; it is the table's key all the same.
    if (!indexList.some((i) => i.origin === 'pk')) {
      pkColumns.forEach((c, i) =>
        indexes.push({ table: name, index: '__pk__', column: c.name, position: i, unique: true, primary: true }),
      );
    }

    const fkGroups = new Map<number, CatalogRow[]>();
    for (const fk of fkList) fkGroups.set(fk.id, [...(fkGroups.get(fk.id) ?? []), fk]);
    const foreignKeys: ForeignKeyInfo[] = [];
    for (const [fk] of [...fkGroups.values()].filter((group) => group.length === 1)) {
      foreignKeys.push({
        table: name,
        column: fk!.from,
        foreign_key_table: fk!.table,
        foreign_key_column: fk!.to ?? (await referencedPrimaryKey(knex, fk!.table)),
        constraint_name: null,
        on_update: normalizeAction(fk!.on_update),
        on_delete: normalizeAction(fk!.on_delete),
      });
    }

    const primary = applyIndexesAndKeys(columns, indexes, foreignKeys);
    result.push({
      name,
      comment: null,
      columns,
      primary_key: primary,
      foreign_keys: foreignKeys,
      view: table.type === 'view',
    });
  }
  return result;
}

/** `REFERENCES t` without a column names t's primary key. */
async function referencedPrimaryKey(knex: Knex, table: string): Promise<string> {
  const info = (await knex.raw(`pragma table_info("${table.replace(/"/g, '""')}")`)) as CatalogRow[];
  return String(info.find((c) => c.pk === 1)?.name ?? 'rowid');
}

function toColumn(table: string, c: CatalogRow, pkCount: number, createSql: string): ColumnInfo {
  const column = emptyColumn(table, c.name);
  const declared = String(c.type ?? '')
    .trim()
    .toLowerCase();
  const match = /^([a-z][a-z0-9 ]*?)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?$/.exec(declared);
  const base = match?.[1]?.trim() ?? declared;
  column.data_type = base || 'unknown';
  const first = match?.[2] !== undefined ? Number(match[2]) : null;
  const second = match?.[3] !== undefined ? Number(match[3]) : null;
  if (['varchar', 'char', 'character', 'nvarchar', 'nchar', 'varying character'].includes(base))
    column.max_length = first;
  if (['decimal', 'numeric'].includes(base)) {
    column.numeric_precision = first;
    column.numeric_scale = second ?? (first !== null ? 0 : null);
  }
  column.is_generated = c.hidden === 2 || c.hidden === 3;
  column.generation_expression = column.is_generated ? generationExpression(createSql, c.name) : null;
  column.is_nullable = c.notnull === 0 && !(c.pk > 0 && base !== 'integer');
  // INTEGER PRIMARY KEY aliases the rowid: the database assigns it.
  column.has_auto_increment = c.pk === 1 && pkCount === 1 && base === 'integer';
  if (column.has_auto_increment) column.is_nullable = false;
  column.default_value = isRandomUuidSql(c.dflt_value) ? 'gen_random_uuid()' : parseDefaultValue(c.dflt_value);
  return column;
}

function generationExpression(createSql: string, name: string): string | null {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`(?:^|[\\s,(])["\`[]?${escaped}["\`\\]]?\\s[^,]*?\\bas\\s*\\(`, 'i').exec(createSql);
  if (!match) return null;
  let depth = 1;
  const start = match.index + match[0].length;
  for (let i = start; i < createSql.length; i++) {
    if (createSql[i] === '(') depth++;
    else if (createSql[i] === ')' && --depth === 0) return createSql.slice(start, i).trim();
  }
  return null;
}

export function mapSqliteType(column: ColumnInfo): ServiceType {
  switch (column.data_type) {
    case 'integer':
    case 'int':
    case 'smallint':
    case 'mediumint':
    case 'tinyint':
    case 'int2':
      return 'integer';
    case 'bigint':
    case 'int8':
    case 'unsigned big int':
      return 'bigInteger';
    case 'boolean':
    case 'bool':
      return 'boolean';
    case 'decimal':
    case 'numeric':
      return 'decimal';
    case 'real':
    case 'double':
    case 'double precision':
    case 'float':
      return 'float';
    case 'varchar':
    case 'char':
    case 'character':
    case 'nvarchar':
    case 'nchar':
    case 'varying character':
      return 'string';
    case 'text':
    case 'clob':
      return 'text';
    case 'json':
    case 'jsonb':
      return 'json';
    case 'date':
      return 'date';
    case 'datetime':
      return 'dateTime';
    case 'timestamp':
      return 'timestamp';
    case 'time':
      return 'time';
    case 'uuid':
      return 'uuid';
    case 'blob':
    case 'binary':
      return 'binary';
    default:
      return 'unknown';
  }
}
