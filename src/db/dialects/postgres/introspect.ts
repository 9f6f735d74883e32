/**
 * PostgreSQL catalog → TableInfo[] for the current schema, in five queries for the whole database. Columns are read
 * from pg_catalog with the expressions information_schema.columns is defined by (data_type, lengths, precision):
 * joining the view itself cost 25–40 ms a read (it checks privileges on every column of the database), 1.5 ms without.
 */
import type { Knex } from 'knex';
import type { ColumnInfo, ForeignKeyInfo, ServiceType, TableInfo } from '../../../schema/types.js';
import { POSTGRES_TEXT_TYPES } from './text-types.js';
import {
  applyIndexesAndKeys,
  emptyColumn,
  groupBy,
  numericDefault,
  parseDefaultValue,
  toNumber,
  type IndexColumn,
  type CatalogRow,
} from '../../introspection-utils.js';

const FK_ACTIONS: Record<string, string> = {
  a: 'NO ACTION',
  r: 'RESTRICT',
  c: 'CASCADE',
  n: 'SET NULL',
  d: 'SET DEFAULT',
};

/**
 * The catalog queries in one round trip on one connection (statements of a simple query, read in one snapshot), on
 * the pool or on a schema change's transaction. Run side by side they opened up to five connections at every start,
 * each a new server process that loads its catalog caches (~10 ms of the server's CPU each).
 */
async function inOneTrip(knex: Knex, queries: string[]): Promise<{ rows: CatalogRow[] }[]> {
  return (await knex.raw(queries.join(';\n'))) as { rows: CatalogRow[] }[];
}

/** The catalog read in one trip: tables, columns, index parts, single-column foreign keys, enum labels. */
const CATALOG_QUERIES = [
  `
      select c.relname as name, n.nspname as schema, obj_description(c.oid, 'pg_class') as comment, c.relkind in ('v', 'm') as is_view
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = any(current_schemas(false)) and c.relkind in ('r', 'p', 'v', 'm') and not c.relispartition
      order by c.relname, array_position(current_schemas(false), n.nspname)`,
  `
      select n.nspname || '.' || c.relname as table_key, c.relname as table_name, a.attname as column_name, a.attnum as position,
        format_type(a.atttypid, a.atttypmod) as full_type, t.typname as udt_name, t.typtype as type_kind,
        case when t.typtype = 'd' then
          case when bt.typelem <> 0 and bt.typlen = -1 then 'ARRAY'
            when btn.nspname = 'pg_catalog' then format_type(t.typbasetype, null) else 'USER-DEFINED' end
        else
          case when t.typelem <> 0 and t.typlen = -1 then 'ARRAY'
            when tn.nspname = 'pg_catalog' then format_type(a.atttypid, null) else 'USER-DEFINED' end
        end as data_type,
        information_schema._pg_char_max_length(information_schema._pg_truetypid(a.*, t.*), information_schema._pg_truetypmod(a.*, t.*)) as character_maximum_length,
        information_schema._pg_numeric_precision(information_schema._pg_truetypid(a.*, t.*), information_schema._pg_truetypmod(a.*, t.*)) as numeric_precision,
        information_schema._pg_numeric_scale(information_schema._pg_truetypid(a.*, t.*), information_schema._pg_truetypmod(a.*, t.*)) as numeric_scale,
        not a.attnotnull as is_nullable, pg_get_expr(d.adbin, d.adrelid) as column_default,
        a.attidentity as identity, a.attgenerated as generated, col_description(c.oid, a.attnum) as comment
      from pg_attribute a
      join pg_class c on c.oid = a.attrelid
      join pg_namespace n on n.oid = c.relnamespace
      join pg_type t on t.oid = a.atttypid
      join pg_namespace tn on tn.oid = t.typnamespace
      left join pg_type bt on t.typtype = 'd' and bt.oid = t.typbasetype
      left join pg_namespace btn on btn.oid = bt.typnamespace
      left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
      where n.nspname = any(current_schemas(false)) and c.relkind in ('r', 'p', 'v', 'm') and a.attnum > 0 and not a.attisdropped
      order by c.relname, a.attnum`,
  `
      select n.nspname || '.' || t.relname as table_key, t.relname as table_name, i.relname as index_name, a.attname as column_name, k.ord as position,
        ix.indisunique and ix.indpred is null as is_unique, ix.indisprimary as is_primary
      from pg_index ix
      join pg_class t on t.oid = ix.indrelid
      join pg_class i on i.oid = ix.indexrelid
      join pg_namespace n on n.oid = t.relnamespace
      cross join lateral unnest(ix.indkey::int2[]) with ordinality as k(attnum, ord)
      left join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum
      where n.nspname = any(current_schemas(false)) and k.ord <= ix.indnkeyatts`,
  `
      select n.nspname || '.' || cl.relname as table_key, cl.relname as table_name, att.attname as column_name, fcl.relname as foreign_table,
        fatt.attname as foreign_column, con.conname as constraint_name, con.confupdtype as on_update,
        con.confdeltype as on_delete
      from pg_constraint con
      join pg_class cl on cl.oid = con.conrelid
      join pg_namespace n on n.oid = cl.relnamespace
      join pg_class fcl on fcl.oid = con.confrelid
      join pg_attribute att on att.attrelid = con.conrelid and att.attnum = con.conkey[1]
      join pg_attribute fatt on fatt.attrelid = con.confrelid and fatt.attnum = con.confkey[1]
      where con.contype = 'f' and n.nspname = any(current_schemas(false)) and array_length(con.conkey, 1) = 1`,
  `select t.typname as type_name, e.enumlabel as label from pg_enum e join pg_type t on t.oid = e.enumtypid order by t.typname, e.enumsortorder`,
];

export async function introspectPostgres(knex: Knex): Promise<TableInfo[]> {
  const [tables, columns, indexes, foreignKeys, enums] = await inOneTrip(knex, CATALOG_QUERIES);
  const enumLabels = new Map<string, string[]>();
  for (const row of enums.rows as CatalogRow[])
    enumLabels.set(row.type_name, [...(enumLabels.get(row.type_name) ?? []), row.label]);

  const columnsByTable = groupBy(columns.rows as CatalogRow[], (r) => r.table_key);
  const indexesByTable = groupBy(indexes.rows as CatalogRow[], (r) => r.table_key);
  const fksByTable = groupBy(foreignKeys.rows as CatalogRow[], (r) => r.table_key);
  // A name in several schemas of the search path is the first one's, as unqualified SQL resolves it.
  const seen = new Set<string>();
  const served = (tables.rows as CatalogRow[]).filter(
    (table) => !seen.has(table.name) && Boolean(seen.add(table.name)),
  );

  return served.map((table) => {
    const name = table.name as string;
    const key = `${table.schema}.${name}`;
    const cols = (columnsByTable.get(key) ?? []).map((r) => toColumn(name, r, enumLabels));
    const fks: ForeignKeyInfo[] = (fksByTable.get(key) ?? []).map((r) => ({
      table: name,
      column: r.column_name,
      foreign_key_table: r.foreign_table,
      foreign_key_column: r.foreign_column,
      constraint_name: r.constraint_name,
      on_update: FK_ACTIONS[r.on_update] ?? null,
      on_delete: FK_ACTIONS[r.on_delete] ?? null,
    }));
    const idx: IndexColumn[] = (indexesByTable.get(key) ?? []).map((r) => ({
      table: name,
      index: r.index_name,
      // An expression part has no column; it still decides which column comes first.
      column: r.column_name ?? '',
      position: Number(r.position),
      unique: r.is_unique,
      primary: r.is_primary,
    }));
    const primary = applyIndexesAndKeys(cols, idx, fks);
    return {
      name,
      comment: table.comment ?? null,
      columns: cols,
      primary_key: primary,
      foreign_keys: fks,
      view: table.is_view === true,
    };
  });
}

const NUMERIC_TYPES = new Set(['smallint', 'integer', 'bigint', 'real', 'double precision', 'numeric']);

function toColumn(table: string, r: CatalogRow, enumLabels: Map<string, string[]>): ColumnInfo {
  const column = emptyColumn(table, r.column_name);
  const rawDefault: string | null = r.column_default;
  const sequence = typeof rawDefault === 'string' && /^nextval\(/i.test(rawDefault);
  // Arrays keep their element type (`text[]`, `integer[]`); enums their type name, with their labels in order.
  column.data_type =
    r.data_type === 'ARRAY' ? r.full_type : r.data_type === 'USER-DEFINED' ? r.udt_name : (r.data_type ?? r.full_type);
  if (r.type_kind === 'e') column.enum_values = { values: enumLabels.get(r.udt_name) ?? [], many: false };
  column.max_length = toNumber(r.character_maximum_length);
  column.numeric_precision = toNumber(r.numeric_precision);
  column.numeric_scale = toNumber(r.numeric_scale);
  column.is_nullable = r.is_nullable;
  column.has_auto_increment = sequence || r.identity === 'a' || r.identity === 'd';
  column.is_generated = r.generated === 's';
  column.generation_expression = column.is_generated ? rawDefault : null;
  column.default_value = sequence || column.is_generated ? null : parseDefaultValue(rawDefault);
  if (NUMERIC_TYPES.has(column.data_type)) column.default_value = numericDefault(column.default_value);
  column.comment = r.comment ?? null;
  return column;
}

export function mapPostgresType(column: ColumnInfo): ServiceType {
  // Arrays read and write as JSON arrays; enums are strings with known values.
  if (column.data_type.endsWith('[]')) return 'json';
  if (column.enum_values) return 'string';
  if (POSTGRES_TEXT_TYPES.has(column.data_type)) return 'string';
  switch (column.data_type) {
    case 'integer':
    case 'smallint':
      return 'integer';
    case 'bigint':
      return 'bigInteger';
    case 'boolean':
      return 'boolean';
    case 'numeric':
      return 'decimal';
    case 'real':
    case 'double precision':
      return 'float';
    case 'character varying':
    case 'character':
      return 'string';
    case 'text':
      return 'text';
    case 'json':
    case 'jsonb':
      return 'json';
    case 'date':
      return 'date';
    case 'timestamp without time zone':
      return 'dateTime';
    case 'timestamp with time zone':
      return 'timestamp';
    case 'time without time zone':
    case 'time with time zone':
      return 'time';
    case 'uuid':
      return 'uuid';
    case 'bytea':
      return 'binary';
    case 'geometry':
    case 'geography':
      return 'geometry';
    default:
      return 'unknown';
  }
}
