/**
 * A revision's `data` on MariaDB without `json_compact`: the object `cast(json_compact(json_object(...)) as char)`
 * writes, concatenated from each value's JSON text instead. `json_object` writes `{"a": 1}` and only `json_compact`
 * gives the compact text the other databases store; compacting re-parses the whole object, which cost about as much
 * as inserting the revisions (10,000 articles: ~175 of ~550 ms). Values whose JSON text is not a plain quoting or the
 * number itself (JSON columns, lists, binary, geometry) keep the JSON functions, one value at a time.
 */
import { CONCEALED } from '../../../schema/concealed.js';
import type { FieldOverview } from '../../../schema/types.js';
import type { RowObjectValue } from '../../../sql/write-hooks.js';
import { mysqlSql } from './sql-hooks.js';

const NUMERIC_COLUMN = /^(tinyint|smallint|mediumint|int|integer|bigint|bool|boolean|bit)$/i;
const FLOAT_COLUMN = /^(float|double|real|double precision)$/i;
const TEXT_COLUMN = /^(char|varchar|tinytext|text|mediumtext|longtext|enum|set)$/i;
/** Values whose wire form is text (a string, or a number or date written as text): their JSON text is the quoted text. */
const QUOTED = new Set(['string', 'text', 'uuid', 'bigInteger', 'decimal', 'date', 'dateTime', 'timestamp', 'time']);

const lit = (text: string) => mysqlSql.stringLiteral(text);

/** The JSON text of one value, as `json_compact(json_object(key, <wire value>))` writes it. */
function valueText(column: string, field: FieldOverview): string {
  const dataType = field.schema?.data_type ?? '';
  if (field.concealed) return `if(${column} is null, 'null', ${lit(JSON.stringify(CONCEALED))})`;
  if (field.type === 'boolean') {
    return NUMERIC_COLUMN.test(dataType)
      ? `if(${column} is null, 'null', if(${column}, 'true', 'false'))`
      : `if(${column} is null or ${column} = '', 'null', if(lower(${column}) in ('1', 'true'), 'true', 'false'))`;
  }
  if (field.type === 'integer' && NUMERIC_COLUMN.test(dataType)) return `coalesce(${column}, 'null')`;
  // MariaDB writes a double in JSON as it writes it in text (0.1, 1e21, 5e-324).
  if (field.type === 'float' && FLOAT_COLUMN.test(dataType)) return `coalesce(${column}, 'null')`;
  // A text value held in a binary column keeps the JSON functions (json_quote wants text).
  const textual = field.type === 'string' || field.type === 'text' || field.type === 'uuid';
  if (QUOTED.has(field.type) && (!textual || TEXT_COLUMN.test(dataType)))
    return `coalesce(json_quote(${mysqlSql.wireValue(column, field)}), 'null')`;
  // The value as json_object embeds it (a JSON column's document, a text column's value as a JSON string), compacted.
  return `if(${column} is null, 'null', json_compact(json_extract(json_array(${mysqlSql.wireValue(column, field)}), '$[0]')))`;
}

/** `{"key":value,...}` by concatenation; equal to `cast(json_compact(json_object(...)) as char)`. */
export function rowObjectText(values: readonly RowObjectValue[]): string {
  if (values.length === 0) return `'{}'`;
  const parts = values.map(({ key, column, field }, i) => {
    const name = `${i === 0 ? '{' : ','}${JSON.stringify(key)}:`;
    return `${lit(name)}, ${valueText(column, field)}`;
  });
  return `concat(${parts.join(', ')}, '}')`;
}
