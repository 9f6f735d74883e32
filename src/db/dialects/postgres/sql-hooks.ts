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

/**
 * JSON built as text in the compact form SQLite and MariaDB answer (and JSON.stringify writes): json_build_object and
 * json_agg write `"id" : 1, "title" : …`, about a tenth more bytes on the wire. Each value goes through to_json, as
 * json_build_object's do (the same conversions); objects and lists are json again (a validation of their text) so
 * that an enclosing level embeds them as they are (to_json of json is the json itself).
 */
function compactObject(pairs: [string, string][]): string {
  if (pairs.length === 0) return `'{}'::json`;
  const parts = pairs.map(([key, value], i) => {
    const name = postgresSql.stringLiteral(`${i ? ',' : ''}${JSON.stringify(key)}:`);
    // An object built here (an aggregate's nested group) is never null: its text goes in without a second look.
    const own = objectText(value);
    return `${name} || ${own ?? `coalesce(to_json(${value})::text, 'null')`}`;
  });
  return `${OBJECT_START}${parts.join(' || ')}${OBJECT_END}`;
}

const OBJECT_START = `('{' || `;
const OBJECT_END = ` || '}')::json`;

/** The text of an object compactObject built (without its json cast, which only an embedding needs), or null. */
function objectText(expression: string): string | null {
  return expression.startsWith(OBJECT_START) && expression.endsWith(OBJECT_END)
    ? expression.slice(0, -'::json'.length)
    : null;
}

/** A json column's text without the whitespace PostgreSQL keeps (json) or writes (jsonb's `{"a": 1}`) outside strings. */
const compactJson = (text: string) => `regexp_replace(${text}, '("(?:[^"\\\\]|\\\\.)*")|\\s+', '\\1', 'g')::json`;

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
        return compactJson(`${column}::text`);
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
  jsonObject: (pairs) => compactObject(pairs),
  jsonArrayText: (expression, orderBy) =>
    `coalesce('[' || string_agg(${objectText(expression) ?? `(${expression})::text`}, ','${orderBy ? ` order by ${orderBy}` : ''}) || ']', '[]')`,
  jsonText: (expression) => objectText(expression) ?? `${expression}::text`,
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
      (element, orderBy) =>
        `coalesce(('[' || string_agg(${objectText(element) ?? `to_json(${element})::text`}, ','${orderBy ? ` order by ${orderBy}` : ''}) || ']')::json, '[]'::json)`,
    ),
  datePart(part, column, field) {
    const source = field.schema?.data_type === 'timestamp with time zone' ? `(${column} at time zone 'UTC')` : column;
    return `floor(extract(${EXTRACT[part]} from ${source}))::integer`;
  },
  // Keys and indexes alike are text arguments of jsonb_extract_path (an index reads an array element).
  jsonPath: (column, path) =>
    `jsonb_extract_path(${column}::jsonb${path.map((segment) => `, ${postgresSql.stringLiteral(String(segment))}`).join('')})`,
  // jsonb writes `["a", "b"]`.
  jsonPathOutput: (expression) => compactJson(`(${expression})::text`),
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
