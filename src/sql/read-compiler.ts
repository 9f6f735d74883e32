/**
 * ReadPlan → one statement returning one row: `data` is the JSON text the database built (an array, or the object
 * for single reads) with every nested level inside it, plus `total_count` / `filter_count` as scalar subqueries
 * when the plan asks for them.
 */
import type { ReadPlan } from '../plan/read-plan.js';
import { compileAggregate } from './aggregate-compiler.js';
import type { SqlDialect } from './dialect-hooks.js';
import { compileFilter } from './filter-compiler.js';
import { levelColumns, levelObject, sortTerms } from './level-compiler.js';
import { limitedRows } from './nested-list.js';
import { column } from './operand-compiler.js';
import { Statement, type CompiledStatement } from './statement.js';

export function compileRead(plan: ReadPlan, dialect: SqlDialect): CompiledStatement {
  const st = new Statement(dialect);
  const q = (id: string) => dialect.quote(id);
  const table = q(plan.table);
  const row = st.alias();
  const filterSql = plan.filter ? compileFilter(plan.filter, st, row) : '';
  const where = filterSql ? ` where ${filterSql}` : '';

  let data: string;
  if (plan.aggregate) {
    data = compileAggregate(plan, plan.aggregate, st, row, where);
  } else if (plan.single) {
    data = `(select ${dialect.jsonText(levelObject(plan, st, row))} from ${table} as ${row}${where}${dialect.limitOffset(1, 0, (v) => st.param(v))})`;
  } else {
    // Rows are filtered, sorted and limited first; only the kept ones are turned into JSON (nested levels included).
    const { select, order } = limitedRows(
      {
        columns: levelColumns(plan, st, row),
        from: `${table} as ${row}`,
        where: filterSql,
        sort: sortTerms(plan.sort, st, row),
        limit: plan.limit,
        offset: plan.offset,
        keys: plan.collection.keyFields.map((field) => column(st, row, field)),
        param: (v) => st.param(v),
      },
      dialect,
    );
    data = `(select ${dialect.jsonArrayText(levelObject(plan, st, row), order(row))} from (${select}) as ${row})`;
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
