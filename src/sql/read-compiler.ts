/**
 * ReadPlan → one statement returning one row: `data` is the JSON text the database built (an array, or the object
 * for single reads), plus `total_count` / `filter_count` as scalar subqueries when the plan asks for them.
 */
import type { ReadPlan } from '../plan/read-plan.js';
import type { SqlDialect } from './dialect-hooks.js';
import { compileFilter } from './filter-compiler.js';
import { Statement, type CompiledStatement } from './statement.js';

const ROW = 't';
const ROW_NUMBER = '__strata_row';

export function compileRead(plan: ReadPlan, dialect: SqlDialect): CompiledStatement {
  const st = new Statement(dialect);
  const q = (id: string) => dialect.quote(id);
  const table = q(plan.table);

  const object = dialect.jsonObject(plan.fields.map(({ key, field }) => [key, dialect.wireValue(`${q(ROW)}.${q(field.field)}`, field)]));
  const where = plan.filter ? ` where ${compileFilter(plan.filter, st, ROW)}` : '';
  // NULL placement only matters on nullable columns; leaving it off elsewhere lets the database walk an index.
  const orderBy = plan.sort
    .map((s) => `${dialect.comparable(`${q(ROW)}.${q(s.field.field)}`, s.field)} ${s.descending ? 'desc' : 'asc'}${s.field.nullable ? dialect.nullsOrder(s.descending) : ''}`)
    .join(', ');

  let data: string;
  if (plan.single) {
    data = `(select ${dialect.jsonText(object)} from ${table} as ${q(ROW)}${where}${dialect.limitOffset(1, 0, (v) => st.param(v))})`;
  } else {
    const rowNumber = `row_number() over (${orderBy ? `order by ${orderBy}` : ''})`;
    // Only the selected columns travel through the window and sort.
    const columns = [...new Set(plan.fields.map(({ field }) => field.field))].map((name) => `${q(ROW)}.${q(name)}`);
    const inner = `select ${[...columns, `${rowNumber} as ${q(ROW_NUMBER)}`].join(', ')} from ${table} as ${q(ROW)}${where}${orderBy ? ` order by ${orderBy}` : ''}${dialect.limitOffset(plan.limit, plan.offset, (v) => st.param(v))}`;
    data = `(select ${dialect.jsonArrayText(object, `${q(ROW)}.${q(ROW_NUMBER)}`)} from (${inner}) as ${q(ROW)})`;
  }

  const columns = [`${data} as ${q('data')}`];
  if (plan.meta.totalCount) {
    const access = plan.accessFilter ? ` where ${compileFilter(plan.accessFilter, st, ROW)}` : '';
    columns.push(`(select count(*) from ${table} as ${q(ROW)}${access}) as ${q('total_count')}`);
  }
  if (plan.meta.filterCount) {
    const filtered = plan.filter ? ` where ${compileFilter(plan.filter, st, ROW)}` : '';
    columns.push(`(select count(*) from ${table} as ${q(ROW)}${filtered}) as ${q('filter_count')}`);
  }
  return { sql: `select ${columns.join(', ')}`, params: st.params };
}
