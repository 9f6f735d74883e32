/**
 * ReadPlan → one statement returning one row: `data` is the JSON text the database built (an array, or the object
 * for single reads) with every nested level inside it, plus `total_count` / `filter_count` as scalar subqueries
 * when the plan asks for them.
 */
import type { ReadPlan } from '../plan/read-plan.js';
import { compileAggregate } from './aggregate-compiler.js';
import type { SqlDialect } from './dialect-hooks.js';
import { compileFilter } from './filter-compiler.js';
import { levelColumns, levelObject, orderBy } from './level-compiler.js';
import { ROW_NUMBER } from './nested-list.js';
import { Statement, type CompiledStatement } from './statement.js';

export function compileRead(plan: ReadPlan, dialect: SqlDialect): CompiledStatement {
  const st = new Statement(dialect);
  const q = (id: string) => dialect.quote(id);
  const table = q(plan.table);
  const row = st.alias();
  const where = plan.filter ? ` where ${compileFilter(plan.filter, st, row)}` : '';

  let data: string;
  if (plan.aggregate) {
    data = compileAggregate(plan, plan.aggregate, st, row, where);
  } else if (plan.single) {
    data = `(select ${dialect.jsonText(levelObject(plan, st, row))} from ${table} as ${row}${where}${dialect.limitOffset(1, 0, (v) => st.param(v))})`;
  } else {
    // Rows are filtered, sorted and limited first; only the kept ones are turned into JSON (nested levels included).
    const order = orderBy(plan.sort, st, row);
    const rowNumber = q(ROW_NUMBER);
    const columns = [...levelColumns(plan, st, row), `row_number() over (${order ? `order by ${order}` : ''}) as ${rowNumber}`];
    const inner = `select ${columns.join(', ')} from ${table} as ${row}${where}${order ? ` order by ${order}` : ''}${dialect.limitOffset(plan.limit, plan.offset, (v) => st.param(v))}`;
    data = `(select ${dialect.jsonArrayText(levelObject(plan, st, row), `${row}.${rowNumber}`)} from (${inner}) as ${row})`;
  }

  const columns = [`${data} as ${q('data')}`];
  if (plan.meta.totalCount) {
    const counted = st.alias();
    const access = plan.accessFilter ? ` where ${compileFilter(plan.accessFilter, st, counted)}` : '';
    columns.push(`(select count(*) from ${table} as ${counted}${access}) as ${q('total_count')}`);
  }
  if (plan.meta.filterCount) {
    const counted = st.alias();
    const filtered = plan.filter ? ` where ${compileFilter(plan.filter, st, counted)}` : '';
    columns.push(`(select count(*) from ${table} as ${counted}${filtered}) as ${q('filter_count')}`);
  }
  return st.finish(`select ${columns.join(', ')}`);
}
