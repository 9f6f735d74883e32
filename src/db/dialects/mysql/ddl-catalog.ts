/**
 * What MySQL/MariaDB's catalog says about a column and its indexes, for the DDL that changes one part of a column
 * and must write the rest back as it was (MODIFY COLUMN restates the whole definition).
 */
import type { CatalogRow } from '../../introspection-utils.js';
import type { DdlCatalog } from '../../schema-ddl.js';

export const q = (id: string) => `\`${id.replace(/`/g, '``')}\``;
export const literal = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/** The column as the catalog holds it, written back as a definition (for the parts a change leaves alone). */
export interface CatalogColumn {
  type: string;
  nullable: boolean;
  /** ` default …` or ''. */
  defaultClause: string;
  /** ` auto_increment`, ` on update …` or ''. */
  extra: string;
  comment: string;
  /** ` character set … collate …` of a text column, kept through a modify; '' otherwise. */
  collation: string;
}

export async function catalogColumn(catalog: DdlCatalog, table: string, column: string): Promise<CatalogColumn> {
  const [row] = await catalog.query(
    `select column_type, data_type, is_nullable, column_default, extra, column_comment, character_set_name, collation_name from information_schema.columns
     where table_schema = database() and table_name = ? and column_name = ?`,
    [table, column],
  );
  if (!row) throw new Error(`Column ${table}.${column} not found`);
  const r = Object.fromEntries(Object.entries(row).map(([k, v]) => [k.toLowerCase(), v])) as CatalogRow;
  const extra = String(r.extra ?? '').toLowerCase();
  return {
    type: String(r.column_type),
    nullable: r.is_nullable === 'YES',
    defaultClause: catalogDefault(r.column_default),
    extra: extra.includes('auto_increment')
      ? ' auto_increment'
      : /on update/.test(extra)
        ? ` ${extra.replace(/.*(on update .*)$/, '$1')}`
        : '',
    comment: String(r.column_comment ?? ''),
    collation: r.collation_name ? ` character set ${r.character_set_name} collate ${r.collation_name}` : '',
  };
}

/** MariaDB writes defaults as SQL (literals quoted); MySQL 8 writes literal text bare. */
function catalogDefault(value: unknown): string {
  if (value === null || value === undefined || value === 'NULL') return '';
  const text = String(value);
  if (
    /^'.*'$/s.test(text) ||
    /^-?\d+(\.\d+)?$/.test(text) ||
    /^[a-z_]+\(.*\)$/i.test(text) ||
    /^current_timestamp/i.test(text)
  )
    return ` default ${text}`;
  return ` default ${literal(text)}`;
}

export function catalogDefinition(name: string, c: CatalogColumn): string {
  return `${q(name)} ${c.type}${c.collation} ${c.nullable ? 'null' : 'not null'}${c.extra === ' auto_increment' ? c.extra : ''}${c.defaultClause}${c.extra.startsWith(' on update') ? c.extra : ''}${c.comment ? ` comment ${literal(c.comment)}` : ''}`;
}

export async function singleColumnIndexes(
  catalog: DdlCatalog,
  table: string,
  column: string,
  unique: boolean,
): Promise<string[]> {
  const rows = (await catalog.query(`show index from ${q(table)}`)).map((r) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k.toLowerCase(), v])),
  );
  const byName = new Map<string, CatalogRow[]>();
  for (const r of rows) byName.set(String(r.key_name), [...(byName.get(String(r.key_name)) ?? []), r]);
  return [...byName.entries()]
    .filter(
      ([name, parts]) =>
        name !== 'PRIMARY' &&
        parts.length === 1 &&
        parts[0]!.column_name === column &&
        (Number(parts[0]!.non_unique) === 0) === unique,
    )
    .map(([name]) => name);
}
