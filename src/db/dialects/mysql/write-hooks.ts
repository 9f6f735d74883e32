import type { JsonRowColumn, WriteDialect } from '../../../sql/write-hooks.js';
import { isUnsignedColumn } from './introspect.js';
import { rowObjectText } from './row-object-text.js';
import { mysqlSql } from './sql-hooks.js';

export const mysqlWrite: WriteDialect = {
  begin: 'start transaction',
  // Placeholders are counted in 16 bits by the server's prepared statements; mysql2's text protocol has no such
  // limit, but statements stay well below max_allowed_packet this way.
  maxParameters: 65_535,
  bind: (field, value) => mysqlSql.bind(field, value),
  defaultRowInsert: (table) => `insert into ${table} () values ()`,
  // Text in utf8mb4 whatever the connection's character set, so that 4-byte characters survive.
  jsonRows: (parameter, columns, alias) =>
    `json_table(${parameter}, '$[*]' columns (ord for ordinality, ${columns
      .map((c, i) => `${mysqlSql.quote(c.name)} ${columnType(c)} path '$[${i}]'`)
      .join(', ')})) as ${alias}`,
  rowsParameter: (rows) => JSON.stringify(rows),
  // JSON_TABLE yields the array's elements in order; an ORDER BY would sort the rows with their text columns through
  // a temporary table (on 10,000 revisions that tripled the INSERT's time).
  jsonRowsInOrder: true,
  // One index lookup per row and constraint otherwise (~10% of the trail's revisions INSERT of 10,000 rows); SET
  // STATEMENT scopes it to this statement, so the session's checks are never left off.
  uncheckedReferences: (insert) => `set statement foreign_key_checks = 0 for ${insert}`,
  rowObjectText,
};

const MYSQL_TYPE: Record<JsonRowColumn['type'], string> = {
  integer: 'bigint',
  text: 'longtext character set utf8mb4',
  varchar: 'varchar(255) character set utf8mb4',
  uuid: 'varchar(36) character set utf8mb4',
  timestamp: 'varchar(32) character set utf8mb4',
};

/**
 * A value compared with a table column (an item's key) is declared in that column's character set and collation:
 * MariaDB refuses to compare two implicit collations that differ ("Illegal mix of collations", e.g. a table created
 * with utf8mb4_unicode_ci against JSON_TABLE's utf8mb4_general_ci), and a comparison in another collation than the
 * column's cannot use its index. Unsigned integer keys reach 2^64 - 1.
 */
function columnType(c: JsonRowColumn): string {
  const like = c.like;
  if (like && c.type === 'integer' && isUnsignedColumn(like)) return 'bigint unsigned';
  const charset = like?.collation && /^([a-z0-9]+)_[a-z0-9_]+$/i.exec(like.collation)?.[1];
  if (!charset || c.type === 'integer') return MYSQL_TYPE[c.type];
  const text = c.type === 'text' ? 'longtext' : 'varchar(255)';
  return `${text} character set ${charset} collate ${like.collation!}`;
}
