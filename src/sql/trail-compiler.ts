/**
 * The audit trail's INSERTs (service_activity, service_revisions) as INSERT ... SELECT over the rows handed over in
 * one JSON parameter (the dialect's `jsonRows`): what every row of a write shares (user, timestamp, ip, user agent,
 * origin) is one constant row joined to them, and a revision's `data` is the item's JSON object built by the
 * database from the row as it is now (the read compiler's object of an admin read), so that neither a snapshot read
 * nor the snapshots' text passes through the server. Rows are inserted in `ord` order: ids ascend in row order.
 */
import type { ReadLevel } from '../plan/read-plan.js';
import type { FieldOverview } from '../schema/types.js';
import { levelObject } from './level-compiler.js';
import { Statement, type CompiledStatement } from './statement.js';
import type { WriteHooks } from './write-compiler.js';
import { compileOperand } from './filter-compiler.js';
import type { JsonRowColumn, RowObjectValue, WriteDialect } from './write-hooks.js';

/** Rows per statement: bounds the JSON parameter (a few MB for revisions with their deltas). */
export const ROWS_PER_STATEMENT = 10_000;

/** How a column's values travel in the JSON rows. */
export function jsonRowType(field: FieldOverview): JsonRowColumn['type'] {
  if (field.type === 'integer' || field.type === 'bigInteger') return 'integer';
  if (field.type === 'uuid') return 'uuid';
  if (field.type === 'timestamp') return 'timestamp';
  // A string column holds at most 255 characters: the rows carry it as a short string, not as long text.
  if (field.type === 'string' && (field.schema?.max_length ?? Infinity) <= 255) return 'varchar';
  return 'text';
}

/** Named values every row shares, and the columns and values of each row. */
export interface TrailRows {
  shared: [FieldOverview, unknown][];
  columns: FieldOverview[];
  rows: unknown[][];
}

function chunked(rows: unknown[][]): unknown[][][] {
  const out: unknown[][][] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) out.push(rows.slice(i, i + ROWS_PER_STATEMENT));
  return out;
}

function jsonColumns(fields: FieldOverview[]): JsonRowColumn[] {
  return fields.map((field) => ({ name: field.field, type: jsonRowType(field) }));
}

/** An item's key as the rows carry it: typed like its column, which it is compared with. */
function keyJsonColumns(fields: FieldOverview[]): JsonRowColumn[] {
  return fields.map((field) => ({ name: `key_${field.field}`, type: jsonRowType(field), like: field.schema }));
}

/** `insert into table (shared..., columns...) select ... from <constant row>, <rows> order by ord [returning id]`. */
export function compileTrailInserts(
  table: string,
  trail: TrailRows,
  hooks: WriteHooks,
  returning: FieldOverview | null,
  extra?: { column: string; expression: (st: Statement, rows: string) => string; keys: FieldOverview[] },
): CompiledStatement[] {
  const { quote: q } = hooks.sql;
  const { bind, jsonRows, rowsParameter, jsonRowsInOrder, uncheckedReferences } = hooks.write;
  const shared = trail.shared.map(([field]) => field);
  const keyColumns = extra ? keyJsonColumns(extra.keys) : [];
  const names = [...shared, ...trail.columns].map((field) => q(field.field));
  if (extra) names.push(q(extra.column));
  const tail = returning ? ` returning ${q(returning.field)}` : '';
  const constant = [trail.shared.map(([field, value]) => bind(field, value ?? null))];
  return chunked(trail.rows).map((chunk) => {
    const st = new Statement(hooks.sql);
    const c = st.alias();
    const r = st.alias();
    const selected = [
      ...shared.map((field) => `${c}.${q(field.field)}`),
      ...trail.columns.map((field) => `${r}.${q(field.field)}`),
    ];
    if (extra) selected.push(extra.expression(st, r));
    const from = [jsonRows(st.param(rowsParameter(chunk)), [...jsonColumns(trail.columns), ...keyColumns], r)];
    if (shared.length > 0)
      from.unshift(
        jsonRowsInOrder
          ? `(select ${shared.map((field, i) => `${st.param(constant[0]![i])} as ${q(field.field)}`).join(', ')}) as ${c}`
          : jsonRows(st.param(rowsParameter(constant)), jsonColumns(shared), c),
      );
    const order = jsonRowsInOrder ? '' : ` order by ${r}.ord`;
    const insert = `insert into ${q(table)} (${names.join(', ')}) select ${selected.join(', ')} from ${from.join(' cross join ')}${order}${tail}`;
    // Revisions (`extra`) name activity and parent rows this transaction has just written: nothing to check.
    return st.finish(extra && uncheckedReferences ? uncheckedReferences(insert) : insert);
  });
}

/**
 * A revision's `data`: the JSON text of the item whose key the row carries (`key_<field>` columns), as `level`
 * (an admin read of its columns) reads it now; the text `null` when the item is gone.
 */
export function snapshotExpression(
  level: ReadLevel,
  keys: FieldOverview[],
  st: Statement,
  rows: string,
  write?: WriteDialect,
): string {
  const d = st.dialect;
  const item = st.alias();
  const match = keys.map((field) => `${item}.${d.quote(field.field)} = ${rows}.${d.quote(`key_${field.field}`)}`);
  const values = write?.rowObjectText ? columnValues(level, st, item) : null;
  const object = values ? write!.rowObjectText!(values) : d.jsonText(levelObject(level, st, item));
  return `coalesce((select ${object} from ${d.quote(level.table)} as ${item} where ${match.join(' and ')}), 'null')`;
}

/** The outputs of `level` as plain columns (an admin read of columns: no guards), or null if any is not one. */
function columnValues(level: ReadLevel, st: Statement, alias: string): RowObjectValue[] | null {
  const values: RowObjectValue[] = [];
  for (const output of level.outputs) {
    if (output.kind !== 'value' || output.guard || output.as || output.operand.kind !== 'field') return null;
    values.push({ key: output.key, column: compileOperand(output.operand, st, alias, 'raw'), field: output.field });
  }
  return values;
}

/**
 * One level's and collection's revisions in a one-statement trail: per row its activity's position among the
 * activity rows (`act`, from 1), and its parent's revision as (statement, position) of an earlier revisions INSERT.
 */
export interface TrailRevisionRows {
  /** collection, item, delta: values as `bind` gives them. */
  columns: FieldOverview[];
  keys: FieldOverview[];
  /** Each row: act, parent statement (or null), parent position (or null), ...columns, ...key parts. */
  rows: unknown[][];
  data: (st: Statement, rows: string) => string;
}

const POSITION: JsonRowColumn = { name: 'act', type: 'integer' };

/**
 * The whole trail as one statement, for databases whose INSERTs may sit in a WITH and answer their rows to later
 * ones (`insertsInWith`): the activity INSERT, then each revisions INSERT, whose rows take their activity id and
 * their parent's revision id by position from the ids an earlier INSERT of the statement answered (ids ascend in
 * row order, each INSERT inserting in `ord` order). No id travels back to the server and the statement count is one
 * whatever the nesting depth. Within ROWS_PER_STATEMENT rows per INSERT.
 */
export function compileTrailWith(
  activity: TrailRows,
  revisions: TrailRevisionRows[],
  columns: { activity: string; parent: string; data: string },
  hooks: WriteHooks,
): CompiledStatement {
  const { quote: q } = hooks.sql;
  const { jsonRows, rowsParameter } = hooks.write;
  const st = new Statement(hooks.sql);
  const ctes: string[] = [];
  const c = st.alias();
  const r = st.alias();
  const activityNames = [...activity.shared.map(([field]) => field), ...activity.columns].map((f) => q(f.field));
  const activitySelected = [
    ...activity.shared.map(([field]) => `${c}.${q(field.field)}`),
    ...activity.columns.map((field) => `${r}.${q(field.field)}`),
  ];
  const constant = jsonRows(
    st.param(rowsParameter([activity.shared.map(([field, value]) => hooks.write.bind(field, value ?? null))])),
    jsonColumns(activity.shared.map(([field]) => field)),
    c,
  );
  const rows = jsonRows(st.param(rowsParameter(activity.rows)), jsonColumns(activity.columns), r);
  ctes.push(
    `${q('a')} as (insert into ${q('service_activity')} (${activityNames.join(', ')}) select ${activitySelected.join(', ')} from ${constant} cross join ${rows} order by ${r}.ord returning ${q('id')})`,
    positions('a', q),
  );
  revisions.forEach((level, index) => {
    const x = st.alias();
    const parents = new Set(level.rows.map((row) => row[1]).filter((s): s is number => typeof s === 'number'));
    const json = [
      POSITION,
      { name: 'par_s', type: 'integer' },
      { name: 'par_n', type: 'integer' },
      ...jsonColumns(level.columns),
      ...keyJsonColumns(level.keys),
    ] satisfies JsonRowColumn[];
    const joins = [`join ${q('a_n')} on ${q('a_n')}.n = ${x}.${q('act')}`];
    for (const s of parents)
      joins.push(`left join ${q(`r${s}_n`)} on ${x}.${q('par_s')} = ${s} and ${q(`r${s}_n`)}.n = ${x}.${q('par_n')}`);
    const parent = parents.size ? `coalesce(${[...parents].map((s) => `${q(`r${s}_n`)}.id`).join(', ')})` : 'null';
    const names = [columns.activity, ...level.columns.map((f) => f.field), columns.parent, columns.data].map(q);
    const selected = [
      `${q('a_n')}.id`,
      ...level.columns.map((field) => `${x}.${q(field.field)}`),
      parent,
      level.data(st, x),
    ];
    ctes.push(
      `${q(`r${index}`)} as (insert into ${q('service_revisions')} (${names.join(', ')}) select ${selected.join(', ')} from ${jsonRows(st.param(rowsParameter(level.rows)), json, x)} ${joins.join(' ')} order by ${x}.ord returning ${q('id')})`,
      positions(`r${index}`, q),
    );
  });
  return st.finish(`with ${ctes.join(', ')} select count(*) as ${q('n')} from ${q('a')}`);
}

/** `<name>_n`: the ids an INSERT answered, numbered from 1 in id order (the order its rows were inserted in). */
function positions(name: string, q: (name: string) => string): string {
  return `${q(`${name}_n`)} as (select ${q('id')} as id, row_number() over (order by ${q('id')}) as n from ${q(name)})`;
}
