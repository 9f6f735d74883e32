/**
 * SQLite's way to change a column, a key or a foreign key: create the table anew from its edited CREATE TABLE text,
 * copy the rows, drop the old table, rename the new one, and create its indexes and triggers again
 * (https://sqlite.org/lang_altertable.html#otheralter). It runs inside the schema change's transaction, with
 * foreign keys off (see ddl.ts), so dropping the old table neither cascades nor fails; the rebuilt table's keys are
 * checked before commit. The AUTOINCREMENT counter is carried over, so deleted keys are not handed out again.
 */
import type { Knex } from 'knex';
import type { Run } from '../../ddl-exec.js';
import {
  compileCreateIndex,
  compileCreateTable,
  parseCreateIndex,
  parseCreateTable,
  sameName,
  unescapeName,
  wrapName,
  type TableAst,
} from './create-table-ast.js';

export interface RebuildEdit {
  /** Changes the parsed table (columns, constraints) in place. */
  edit(ast: TableAst): void;
  /** SELECT expression per column of the new table (default: the column itself); written over the old table. */
  copy?: Record<string, string>;
}

/** Tables rebuilt in each schema-change transaction: their foreign keys are checked before commit. */
export const rebuiltTables = new WeakMap<object, Set<string>>();

export async function rebuildTable(run: Run, knex: Knex, table: string, change: RebuildEdit): Promise<void> {
  const objects = await run(knex, `select type, name, sql from sqlite_master where tbl_name = ? and sql is not null`, [table]);
  const create = objects.find((o) => o.type === 'table');
  if (!create) throw new Error(`Table ${table} not found`);
  const ast = parseCreateTable(String(create.sql));
  const oldColumns = await run(knex, `pragma table_xinfo(${wrapName(table)})`);
  change.edit(ast);

  const temporary = `_strata_rebuild_${table}`;
  ast.table = temporary;
  await run(knex, compileCreateTable(ast));

  // Generated columns are computed again; every other column that still exists is copied.
  const generated = new Set(oldColumns.filter((c) => c.hidden === 2 || c.hidden === 3).map((c) => String(c.name).toLowerCase()));
  const kept = ast.columns
    .map((c) => unescapeName(c.name))
    .filter((name) => !generated.has(name.toLowerCase()) && !(ast.columns.find((c) => sameName(c.name, name))?.constraints.as))
    .filter((name) => oldColumns.some((c) => sameName(String(c.name), name)) || change.copy?.[name] !== undefined);
  if (kept.length) {
    const source = kept.map((name) => change.copy?.[name] ?? wrapName(name));
    await run(knex, `insert into ${wrapName(temporary)} (${kept.map(wrapName).join(', ')}) select ${source.join(', ')} from ${wrapName(table)}`);
  }

  const sequence = await run(knex, `select seq from sqlite_sequence where name = ?`, [table]).catch(() => []);
  await run(knex, `drop table ${wrapName(table)}`);
  // Legacy renaming leaves other tables' references alone: they name the original table, which this becomes.
  await run(knex, 'pragma legacy_alter_table = on');
  try {
    await run(knex, `alter table ${wrapName(temporary)} rename to ${wrapName(table)}`);
  } finally {
    await run(knex, 'pragma legacy_alter_table = off');
  }
  if (sequence.length) {
    await run(knex, `delete from sqlite_sequence where name = ?`, [table]);
    await run(knex, `insert into sqlite_sequence (name, seq) values (?, ?)`, [table, sequence[0]!.seq]);
  }

  const columnNames = new Set(ast.columns.map((c) => unescapeName(c.name).toLowerCase()));
  for (const object of objects) {
    if (object.type === 'index') {
      const index = parseCreateIndex(String(object.sql));
      // An index over a dropped column goes with it.
      if (index.columns.some((c) => !c.expression && !columnNames.has(unescapeName(c.name).toLowerCase()))) continue;
      await run(knex, compileCreateIndex(index));
    } else if (object.type === 'trigger') {
      await run(knex, String(object.sql));
    }
  }

  const rebuilt = rebuiltTables.get(knex);
  if (rebuilt) rebuilt.add(table);
}
