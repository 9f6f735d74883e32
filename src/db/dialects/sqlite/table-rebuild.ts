/**
 * SQLite's way to change a column, a key or a foreign key: create the table anew from its edited CREATE TABLE text,
 * copy the rows, drop the old table, rename the new one, and create its indexes and triggers again
 * (https://sqlite.org/lang_altertable.html#otheralter). It runs inside the schema change's transaction, with
 * foreign keys off (see ddl.ts), so dropping the old table neither cascades nor fails; the rebuilt table's keys are
 * checked before commit. The AUTOINCREMENT counter is carried over, so deleted keys are not handed out again.
 */
import type { DdlCatalog, DdlStatement } from '../../schema-ddl.js';
import { indexColumns, quoteName, sameName, TableDefinition } from './table-definition.js';

export interface RebuildEdit {
  /** Changes the parsed table (columns, constraints) in place. */
  edit(table: TableDefinition): void;
  /** SELECT expression per column of the new table (default: the column itself); written over the old table. */
  copy?: Record<string, string>;
}

/** Tables rebuilt in each schema-change transaction (DdlCatalog.session): their foreign keys are checked before commit. */
export const rebuiltTables = new WeakMap<object, Set<string>>();

export async function* rebuildTable(
  catalog: DdlCatalog,
  table: string,
  change: RebuildEdit,
): AsyncGenerator<DdlStatement> {
  const objects = await catalog.query(
    `select type, name, sql from sqlite_master where tbl_name = ? and sql is not null order by rowid`,
    [table],
  );
  const create = objects.find((o) => o.type === 'table');
  if (!create) throw new Error(`Table ${table} not found`);
  const definition = TableDefinition.parse(String(create.sql));
  const oldColumns = await catalog.query(`pragma table_xinfo(${quoteName(table)})`);
  change.edit(definition);

  const temporary = `_strata_rebuild_${table}`;
  definition.table = temporary;
  yield { sql: definition.toSql() };

  // Generated columns are computed again; every other column that still exists is copied.
  const generated = new Set(
    oldColumns.filter((c) => c.hidden === 2 || c.hidden === 3).map((c) => String(c.name).toLowerCase()),
  );
  const kept = definition.columns
    .map((c) => c.name)
    .filter((name) => !generated.has(name.toLowerCase()) && !definition.generated(name))
    .filter((name) => oldColumns.some((c) => sameName(String(c.name), name)) || change.copy?.[name] !== undefined);
  if (kept.length) {
    const source = kept.map((name) => change.copy?.[name] ?? quoteName(name));
    yield {
      sql: `insert into ${quoteName(temporary)} (${kept.map(quoteName).join(', ')}) select ${source.join(', ')} from ${quoteName(table)}`,
    };
  }

  const sequence = await catalog.query(`select seq from sqlite_sequence where name = ?`, [table]).catch(() => []);
  yield { sql: `drop table ${quoteName(table)}` };
  // Legacy renaming leaves other tables' references alone: they name the original table, which this becomes. The
  // transaction (ddl.ts) switches it off again whatever happens.
  yield { sql: 'pragma legacy_alter_table = on' };
  yield { sql: `alter table ${quoteName(temporary)} rename to ${quoteName(table)}` };
  yield { sql: 'pragma legacy_alter_table = off' };
  if (sequence.length) {
    yield { sql: `delete from sqlite_sequence where name = ?`, params: [table] };
    yield { sql: `insert into sqlite_sequence (name, seq) values (?, ?)`, params: [table, sequence[0]!.seq] };
  }

  const columnNames = new Set(definition.columns.map((c) => c.name.toLowerCase()));
  for (const object of objects) {
    if (object.type === 'index') {
      // An index over a dropped column goes with it.
      if (indexColumns(String(object.sql)).some((c) => c !== null && !columnNames.has(c.toLowerCase()))) continue;
      yield { sql: String(object.sql) };
    } else if (object.type === 'trigger') {
      yield { sql: String(object.sql) };
    }
  }

  let rebuilt = rebuiltTables.get(catalog.session);
  if (!rebuilt) rebuiltTables.set(catalog.session, (rebuilt = new Set()));
  rebuilt.add(table);
}
