import type { FieldOverview } from '../../../schema/types.js';
import type { SqlDialect } from '../../../sql/dialect-hooks.js';
import { derivedTableList } from '../../../sql/nested-list.js';
import { POSTGRES_TEXT_TYPES } from './text-types.js';
import { CONCEALED } from '../../../schema/concealed.js';

/** The concealed marker as an SQL literal. */
const CONCEALED_SQL = `'${CONCEALED}'`;
const EXTRACT: Record<string, string> = {
  year: 'year',
  month: 'month',
  week: 'week',
  day: 'day',
  weekday: 'dow',
  hour: 'hour',
  minute: 'minute',
  second: 'second',
};
const UUID_TEXT = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
/** Text-like types (introspect.ts) read as their text. */
const TEXT_TYPES = POSTGRES_TEXT_TYPES;

const NUMERIC_COLUMN = /^(smallint|integer|bigint|numeric|decimal|real|double precision)$/i;

export const postgresSql: SqlDialect = {
  quote: (id) => `"${id.replace(/"/g, '""')}"`,
  placeholder: (n) => `$${n}`,
  maxParameters: 65_535,
  // One array parameter; its element type is inferred from the column.
  listMembership: (column, values, negate, param) =>
    negate ? `not (${column} = any(${param(values)}))` : `${column} = any(${param(values)})`,
  bind(field, value) {
    // Booleans of non-boolean columns (cast-boolean): numbers in numeric columns, true/false text otherwise.
    if (typeof value === 'boolean' && field.schema && field.schema.data_type !== 'boolean') {
      return NUMERIC_COLUMN.test(field.schema.data_type) ? (value ? 1 : 0) : String(value);
    }
    return value;
  },
  // json/jsonb, arrays, enums and text-like types have no equality or LIKE with arbitrary text: filters compare their text.
  comparable: (column, field) =>
    field.type === 'json' ||
    (field.type === 'string' && field.schema && (TEXT_TYPES.has(field.schema.data_type) || field.schema.enum_values))
      ? `${column}::text`
      : column,
  // json has no ordering operator: it sorts by its text.
  sortable: (column, field) => (field.type === 'json' ? `${column}::text` : column),
  asText: (column) => `${column}::text`,
  likeEscape: '',
  wireValue(column: string, field: FieldOverview): string {
    if (field.concealed) return `case when ${column} is null then null else ${CONCEALED_SQL} end`;
    const dataType = field.schema?.data_type ?? '';
    switch (field.type) {
      case 'bigInteger':
      case 'decimal':
      case 'uuid':
        return `${column}::text`;
      case 'boolean':
        // Non-boolean columns read as booleans (cast-boolean) hold 1/'1'/'true'; '' reads as null.
        return dataType === 'boolean'
          ? column
          : `case when ${column} is null or ${column}::text = '' then null else lower(${column}::text) in ('1', 'true', 't') end`;
      case 'json':
        if (dataType.endsWith('[]')) return `to_json(${column})`;
        return dataType === 'json' || dataType === 'jsonb' ? column : `${column}::json`;
      case 'csv':
        return `case when ${column} is null then null when ${column} = '' then '[]'::json else to_json(string_to_array(${column}, ',')) end`;
      case 'date':
        return `to_char(${column}, 'YYYY-MM-DD')`;
      case 'dateTime':
        return `to_char(${column}, 'YYYY-MM-DD"T"HH24:MI:SS')`;
      case 'timestamp':
        return dataType === 'timestamp with time zone'
          ? `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
          : `to_char(${column}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
      case 'time':
        // to_char has no time-with-zone form; the wire format carries no zone either.
        return `to_char(${column}${dataType === 'time with time zone' ? '::time' : ''}, 'HH24:MI:SS')`;
      case 'binary':
        return `encode(${column}, 'base64')`;
      case 'geometry':
      case 'unknown':
        return `${column}::text`;
      case 'string':
        // An address of one host reads without its mask (`10.0.0.1`, not `10.0.0.1/32`), as it was written.
        if (dataType === 'inet')
          return `case when masklen(${column}) = case family(${column}) when 4 then 32 else 128 end then host(${column}) else ${column}::text end`;
        return TEXT_TYPES.has(dataType) || field.schema?.enum_values ? `${column}::text` : column;
      default:
        return column;
    }
  },
  jsonObject: (pairs) =>
    `json_build_object(${pairs.map(([k, v]) => `${postgresSql.stringLiteral(k)}, ${v}`).join(', ')})`,
  jsonArrayText: (expression, orderBy) =>
    `coalesce(json_agg(${expression}${orderBy ? ` order by ${orderBy}` : ''}), '[]'::json)::text`,
  jsonText: (expression) => `${expression}::text`,
  // Measured: PostgreSQL walks the index for a deep page and skips rows without reading them (docs/design/index-friendly-sql.md).
  keysFirst: () => false,
  literalLimits: false,
  limitOffset(limit, offset, param) {
    let sql = '';
    if (limit !== null) sql += ` limit ${param(limit)}`;
    if (offset > 0) sql += ` offset ${param(offset)}`;
    return sql;
  },
  stringLiteral: (text) => `'${text.replace(/'/g, "''")}'`,
  embedJson: (expression) => expression,
  jsonString: (expression) => `to_json(${expression})`,
  nestedList: (list) =>
    derivedTableList(
      list,
      postgresSql,
      (element, orderBy) => `coalesce(json_agg(${element}${orderBy ? ` order by ${orderBy}` : ''}), '[]'::json)`,
    ),
  datePart(part, column, field) {
    const source = field.schema?.data_type === 'timestamp with time zone' ? `(${column} at time zone 'UTC')` : column;
    return `floor(extract(${EXTRACT[part]} from ${source}))::integer`;
  },
  // Keys and indexes alike are text arguments of jsonb_extract_path (an index reads an array element).
  jsonPath: (column, path) =>
    `jsonb_extract_path(${column}::jsonb${path.map((segment) => `, ${postgresSql.stringLiteral(String(segment))}`).join('')})`,
  jsonLength(column, field) {
    const value = field.schema?.data_type === 'json' ? column : `${column}::json`;
    return `case when json_typeof(${value}) = 'array' then json_array_length(${value}) end`;
  },
  keyFromText(expression, keyField) {
    if (keyField.type === 'integer' || keyField.type === 'bigInteger')
      return `case when ${expression} ~ '^-?[0-9]{1,18}$' then ${expression}::bigint end`;
    if (keyField.type === 'uuid' && keyField.schema?.data_type === 'uuid')
      return `case when ${expression} ~ '${UUID_TEXT}' then ${expression}::uuid end`;
    return expression;
  },
  toFloat: (expression) => `(${expression})::double precision`,
  average: (expression) => `(${expression})::double precision`,
  toText: (expression) => `(${expression})::text`,
  namedLock: (name) => ({
    lock: `select pg_advisory_lock(hashtext(${postgresSql.stringLiteral(name)}))`,
    unlock: `select pg_advisory_unlock(hashtext(${postgresSql.stringLiteral(name)}))`,
  }),
};
