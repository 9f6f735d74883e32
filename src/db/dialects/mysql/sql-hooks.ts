import type { FieldOverview } from '../../../schema/types.js';
import type { SqlDialect } from '../../../sql/dialect-hooks.js';

const CONCEALED = `'**********'`;
/** Columns whose truthiness is numeric; text columns read as booleans (cast-boolean) hold '1'/'true'. */
const NUMERIC_COLUMN = /^(bool|boolean|tinyint|bit|smallint|mediumint|int|integer|bigint)$/i;

export const mysqlSql: SqlDialect = {
  quote: (id) => `\`${id.replace(/`/g, '``')}\``,
  placeholder: () => '?',
  bind(field, value) {
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (typeof value !== 'string') return value;
    // The session runs in UTC; DATETIME/TIMESTAMP literals take a space and no zone.
    if (field.type === 'timestamp') return value.replace('T', ' ').replace(/Z$/, '');
    if (field.type === 'dateTime') return value.replace('T', ' ');
    return value;
  },
  comparable: (column) => column,
  asText: (column) => `cast(${column} as char)`,
  likeEscape: '',
  wireValue(column: string, field: FieldOverview): string {
    if (field.concealed) return `if(${column} is null, null, ${CONCEALED})`;
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
  jsonArrayText: (expression, orderBy) => `cast(coalesce(json_arrayagg(${expression} order by ${orderBy}), json_array()) as char)`,
  jsonText: (expression) => `cast(${expression} as char)`,
  nullsOrder: () => '',
  limitOffset(limit, offset, param) {
    if (limit === null && offset === 0) return '';
    // MySQL needs a LIMIT before OFFSET; the largest unsigned BIGINT means "no limit".
    const limitSql = limit === null ? '18446744073709551615' : param(limit);
    return ` limit ${limitSql}${offset > 0 ? ` offset ${param(offset)}` : ''}`;
  },
  stringLiteral: (text) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`,
};
