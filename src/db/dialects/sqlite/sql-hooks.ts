import type { FieldOverview } from '../../../schema/types.js';
import type { SqlDialect } from '../../../sql/dialect-hooks.js';
import { jsonPathText } from '../../../sql/json-path.js';
import { derivedTableList } from '../../../sql/nested-list.js';
import { dateBound } from './date-bounds.js';
import { CONCEALED } from '../../../schema/concealed.js';

/** The concealed marker as an SQL literal. */
const CONCEALED_SQL = `'${CONCEALED}'`;
const BOOLEAN_COLUMN = /^(bool|boolean|integer|int|tinyint|smallint)$/i;

const DATE_FORMATS: Record<string, string> = {
  date: '%Y-%m-%d',
  dateTime: '%Y-%m-%dT%H:%M:%S',
  timestamp: '%Y-%m-%dT%H:%M:%fZ',
  time: '%H:%M:%S',
};

const PART_FORMAT: Record<string, string> = {
  year: '%Y',
  month: '%m',
  week: '%V',
  day: '%d',
  weekday: '%w',
  hour: '%H',
  minute: '%M',
  second: '%S',
};

/**
 * SQLite databases hold dates as text or as epoch milliseconds: both normalise to the wire format. Epoch
 * milliseconds are what Directus writes (a JS Date); it reads them back as a moment for `timestamp` and in the
 * server's time zone for `date` and `dateTime` (the Date's local fields), so those read in the zone the process runs
 * in now (SQLite's `localtime` is the process's TZ): after a time-zone change they read as Directus reads them.
 */
function normalisedDate(column: string, format: string, local: boolean): string {
  const zone = local ? `, 'localtime'` : '';
  return `case when typeof(${column}) in ('integer', 'real') then strftime('${format}', ${column} / 1000.0, 'unixepoch'${zone}) else strftime('${format}', ${column}) end`;
}

/** Types Directus reads in the server's time zone (the other date types are moments, or times of day). */
const LOCAL_TYPES = new Set(['date', 'dateTime']);

/** SQLite writes a whole real as `2.0` in JSON; JSON.stringify, PostgreSQL and MariaDB write `2`. */
function wholeAsInteger(real: string): string {
  return `case when ${real} = cast(${real} as integer) and abs(${real}) < 1e15 then cast(${real} as integer) else ${real} end`;
}

export const sqliteSql: SqlDialect = {
  quote: (id) => `"${id.replace(/"/g, '""')}"`,
  placeholder: () => '?',
  maxParameters: 32_766,
  // One JSON text parameter; the column's affinity applies to the values json_each yields.
  listMembership: (column, values, negate, param) =>
    `${column} ${negate ? 'not in' : 'in'} (select value from json_each(${param(JSON.stringify(values))}))`,
  bind: (_field, value) => (typeof value === 'boolean' ? (value ? 1 : 0) : value),
  comparable(column, field) {
    const format = DATE_FORMATS[field.type];
    return format ? normalisedDate(column, format, LOCAL_TYPES.has(field.type)) : column;
  },
  sortable: (column) => column,
  indexableBound: dateBound,
  asText: (column) => `cast(${column} as text)`,
  likeEscape: ` escape '\\'`,
  wireValue(column: string, field: FieldOverview): string {
    if (field.concealed) return `case when ${column} is null then null else ${CONCEALED_SQL} end`;
    const format = DATE_FORMATS[field.type];
    if (format) return normalisedDate(column, format, LOCAL_TYPES.has(field.type));
    switch (field.type) {
      case 'boolean':
        // Text columns read as booleans (cast-boolean) hold '1'/'true'; numeric ones are truthy as numbers.
        return BOOLEAN_COLUMN.test(field.schema?.data_type ?? '')
          ? `json(case when ${column} is null then 'null' when ${column} then 'true' else 'false' end)`
          : `json(case when ${column} is null or ${column} = '' then 'null' when lower(cast(${column} as text)) in ('1', 'true') then 'true' else 'false' end)`;
      case 'bigInteger':
        return `cast(${column} as text)`;
      case 'uuid':
        return `lower(${column})`;
      case 'decimal': {
        const scale = field.schema?.numeric_scale;
        return scale === null || scale === undefined
          ? `cast(${column} as text)`
          : `case when ${column} is null then null else printf('%.${scale}f', ${column}) end`;
      }
      case 'json':
        return `json(case when json_valid(${column}) then ${column} else json_quote(${column}) end)`;
      case 'csv':
        return `json(case when ${column} is null then null when ${column} = '' then '[]' else '[' || replace(json_quote(${column}), ',', '","') || ']' end)`;
      case 'float':
        return wholeAsInteger(column);
      case 'binary':
        return `hex(${column})`;
      default:
        return column;
    }
  },
  jsonObject: (pairs) => `json_object(${pairs.map(([k, v]) => `${sqliteSql.stringLiteral(k)}, ${v}`).join(', ')})`,
  jsonArrayText: (expression, orderBy) =>
    `coalesce(json_group_array(${expression}${orderBy ? ` order by ${orderBy}` : ''}), '[]')`,
  jsonText: (expression) => expression,
  // Measured: SQLite walks the index for a deep page as it is (docs/design/index-friendly-sql.md).
  keysFirst: () => false,
  // The limit is written into the statement: SQLite's planner reads a bound LIMIT and expires the prepared statement
  // whenever it is bound again, so every run of it was prepared anew (~40 % of a small read's time, docs/design/statement-cache.md).
  // The offset, which the planner does not read, stays bound, so that pages share one statement.
  literalLimits: true,
  limitOffset(limit, offset, param) {
    if (limit === null && offset === 0) return '';
    const count = limit === null ? '-1' : Number.isSafeInteger(limit) && limit >= 0 ? String(limit) : param(limit);
    return ` limit ${count}${offset > 0 ? ` offset ${param(offset)}` : ''}`;
  },
  stringLiteral: (text) => `'${text.replace(/'/g, "''")}'`,
  // A JSON function's result keeps SQLite's JSON subtype through a scalar subquery (what the engine nests), so it
  // nests as JSON without json() parsing the text again. Values read from a derived table's columns would not.
  embedJson: (expression) => expression,
  jsonString: (expression) => `json_quote(${expression})`,
  nestedList: (list) =>
    derivedTableList(
      list,
      sqliteSql,
      (element, orderBy) => `coalesce(json_group_array(${element}${orderBy ? ` order by ${orderBy}` : ''}), '[]')`,
    ),
  datePart(part, column, field) {
    return `cast(strftime('${PART_FORMAT[part]}', ${sqliteSql.comparable(column, field)}) as integer)`;
  },
  // `->` answers the value's JSON text (strings quoted, objects whole); json() gives it the JSON subtype to nest.
  jsonPath: (column, path) =>
    `json(case when json_valid(${column}) then ${column} -> ${sqliteSql.stringLiteral(jsonPathText(path))} end)`,
  jsonPathOutput: (expression) => expression,
  jsonLength: (column) =>
    `case when json_valid(${column}) and json_type(${column}) = 'array' then json_array_length(${column}) end`,
  keyFromText: (expression) => expression,
  toFloat: (expression) => wholeAsInteger(`cast(${expression} as real)`),
  // SQLite has only binary floats: avg(16.24, 16.25) is 16.244999999999997. Fifteen significant digits (what a
  // double holds exactly) give the decimal answer the other databases compute (16.245).
  average: (expression) =>
    `case when ${expression} is null then null else cast(printf('%.15g', ${expression}) as real) end`,
  toText: (expression) => `cast(${expression} as text)`,
  namedLock: () => null,
};
