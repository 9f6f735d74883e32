import type { FieldOverview } from '../../../schema/types.js';
import type { SqlDialect } from '../../../sql/dialect-hooks.js';
import { jsonPathText } from '../../../sql/json-path.js';
import { orderClause } from '../../../sql/nested-list.js';
import { CONCEALED } from '../../../schema/concealed.js';

/** The concealed marker as an SQL literal. */
const CONCEALED_SQL = `'${CONCEALED}'`;
const DATE_PART: Record<string, (column: string) => string> = {
  year: (c) => `year(${c})`,
  month: (c) => `month(${c})`,
  week: (c) => `week(${c}, 3)`,
  day: (c) => `dayofmonth(${c})`,
  weekday: (c) => `(dayofweek(${c}) - 1)`,
  hour: (c) => `hour(${c})`,
  minute: (c) => `minute(${c})`,
  second: (c) => `second(${c})`,
};
/** Columns whose truthiness is numeric; text columns read as booleans (cast-boolean) hold '1'/'true'. */
const NUMERIC_COLUMN = /^(bool|boolean|tinyint|bit|smallint|mediumint|int|integer|bigint)$/i;

export const mysqlSql: SqlDialect = {
  quote: (id) => `\`${id.replace(/`/g, '``')}\``,
  placeholder: () => '?',
  // Statements go as text (the driver writes the values in): no parameter limit, and a long list is only a long text.
  maxParameters: Number.POSITIVE_INFINITY,
  listMembership: () => null,
  bind(field, value) {
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (typeof value !== 'string') return value;
    // The session runs in UTC; DATETIME/TIMESTAMP literals take a space and no zone.
    if (field.type === 'timestamp') return value.replace('T', ' ').replace(/Z$/, '');
    if (field.type === 'dateTime') return value.replace('T', ' ');
    return value;
  },
  comparable: (column) => column,
  sortable: (column) => column,
  asText: (column) => `cast(${column} as char)`,
  likeEscape: '',
  wireValue(column: string, field: FieldOverview): string {
    if (field.concealed) return `if(${column} is null, null, ${CONCEALED_SQL})`;
    switch (field.type) {
      case 'boolean':
        return NUMERIC_COLUMN.test(field.schema?.data_type ?? '')
          ? `if(${column} is null, null, if(${column}, json_extract('true', '$'), json_extract('false', '$')))`
          : `if(${column} is null or ${column} = '', null, if(lower(${column}) in ('1', 'true'), json_extract('true', '$'), json_extract('false', '$')))`;
      case 'bigInteger':
      case 'decimal':
        return `cast(${column} as char)`;
      case 'uuid':
        return `lower(${column})`;
      case 'json':
        // A text column read as JSON (cast-json) only embeds as JSON straight from json_extract (if() makes it text).
        return field.schema?.data_type === 'json'
          ? `if(json_valid(${column}), json_extract(${column}, '$'), ${column})`
          : `json_extract(case when json_valid(${column}) then ${column} else json_quote(${column}) end, '$')`;
      case 'csv':
        return `case when ${column} is null then null when ${column} = '' then json_array() else json_extract(concat('[', replace(json_quote(${column}), ',', '","'), ']'), '$') end`;
      case 'date':
        return `date_format(${column}, '%Y-%m-%d')`;
      case 'dateTime':
        return `date_format(${column}, '%Y-%m-%dT%H:%i:%s')`;
      case 'timestamp':
        return `concat(date_format(${column}, '%Y-%m-%dT%H:%i:%s.'), lpad(floor(microsecond(${column}) / 1000), 3, '0'), 'Z')`;
      case 'time':
        return `time_format(${column}, '%H:%i:%s')`;
      case 'binary':
        return `to_base64(${column})`;
      case 'geometry':
        return `st_astext(${column})`;
      default:
        return column;
    }
  },
  jsonObject: (pairs) => `json_object(${pairs.map(([k, v]) => `${mysqlSql.stringLiteral(k)}, ${v}`).join(', ')})`,
  // MariaDB writes `{"id": 1, "title": …}`; the answer is compacted once, at the top, to the form SQLite writes.
  jsonArrayText: (expression, orderBy) =>
    `cast(json_compact(coalesce(json_arrayagg(${expression}${orderBy ? ` order by ${orderBy}` : ''}), json_array())) as char)`,
  jsonText: (expression) => `cast(json_compact(${expression}) as char)`,
  // A deep page sorts the whole table where the keys alone walk the sort column's index (docs/design/index-friendly-sql.md).
  keysFirst: (limit, offset) => limit !== null && offset > 0,
  literalLimits: false,
  limitOffset(limit, offset, param) {
    if (limit === null && offset === 0) return '';
    // MySQL needs a LIMIT before OFFSET; the largest unsigned BIGINT means "no limit".
    const limitSql = limit === null ? '18446744073709551615' : param(limit);
    return ` limit ${limitSql}${offset > 0 ? ` offset ${param(offset)}` : ''}`;
  },
  stringLiteral: (text) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`,
  // MariaDB may treat JSON leaving a subquery or CASE as a string; json_extract(.., '$') makes it JSON again.
  embedJson: (expression) => `json_extract(${expression}, '$')`,
  jsonString: (expression) => `json_quote(${expression})`,
  nestedList(list) {
    // MariaDB has no LATERAL and no outer references in derived tables, but its JSON_ARRAYAGG sorts and limits by
    // itself. The bounds are validated integers, written inline because the aggregate's LIMIT takes no placeholders.
    const order = orderClause(list.sort);
    const all = list.limit === null && list.offset === 0;
    // Text keys stay in this form: a JSON_TABLE text column has its own collation, which MariaDB refuses to compare
    // with a column of another one (and forcing one would keep the key's index from being used).
    const integerKey = list.key?.field.type === 'integer' || list.key?.field.type === 'bigInteger';
    // Elements without subqueries (columns only, or a key list) cost no more than the kept keys themselves.
    const costlyElement = /\bselect\b/i.test(list.element);
    if (all || !list.key || !integerKey || !costlyElement) {
      const window = all
        ? ''
        : ` limit ${list.limit === null ? '18446744073709551615' : Math.trunc(list.limit)}${list.offset > 0 ? ` offset ${Math.trunc(list.offset)}` : ''}`;
      return `json_extract((select coalesce(json_arrayagg(${list.element}${order}${window}), json_array()) from ${list.from} where ${list.where}), '$')`;
    }
    // With a limit, only the kept rows may become JSON (their elements can hold whole nested levels): the parent's
    // rows are found through the index on the join column and only their keys are sorted and limited, JSON_TABLE
    // (which, unlike a derived table, may read the enclosing row) turns those keys into rows, and the elements are
    // built for these rows alone, read by primary key in the order kept.
    const window = ` limit ${list.limit === null ? '18446744073709551615' : Math.trunc(list.limit)}${list.offset > 0 ? ` offset ${Math.trunc(list.offset)}` : ''}`;
    const keys = `(select json_arrayagg(${list.key.column}${order}${window}) from ${list.from} where ${list.where})`;
    const kept = mysqlSql.quote('__strata_kept');
    const rows = `json_table(${keys}, '$[*]' columns (${mysqlSql.quote('n')} for ordinality, ${mysqlSql.quote('k')} bigint path '$')) as ${kept}`;
    return `json_extract((select coalesce(json_arrayagg(${list.element} order by ${kept}.${mysqlSql.quote('n')}), json_array()) from ${rows} straight_join ${list.from} on ${list.key.column} = ${kept}.${mysqlSql.quote('k')}), '$')`;
  },
  datePart: (part, column) => DATE_PART[part]!(column),
  jsonPath: (column, path) =>
    `json_extract(case when json_valid(${column}) then json_extract(${column}, ${mysqlSql.stringLiteral(jsonPathText(path))}) end, '$')`,
  // The answer is compacted as a whole (jsonText, jsonArrayText).
  jsonPathOutput: (expression) => expression,
  jsonLength: (column) =>
    `case when json_valid(${column}) and json_type(${column}) = 'ARRAY' then json_length(${column}) end`,
  keyFromText: (expression) => expression,
  toFloat: (expression) => `cast(${expression} as double)`,
  average: (expression) => `cast(${expression} as double)`,
  toText: (expression) => `cast(${expression} as char)`,
  namedLock: (name) => ({
    lock: `select get_lock(${mysqlSql.stringLiteral(name)}, 600)`,
    unlock: `select release_lock(${mysqlSql.stringLiteral(name)})`,
  }),
};
