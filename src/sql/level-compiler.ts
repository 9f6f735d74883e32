/**
 * One level of a read plan → the JSON object of one of its rows, built by the database. Related levels become
 * correlated subqueries in the same statement: m2o objects, o2m lists (sorted and limited per parent by the
 * dialect's nestedList), and m2a items (a CASE over the allowed collections).
 */
import type { Join, Operand, PlannedOutput, PlannedSort, ReadLevel } from '../plan/read-plan.js';
import { compileFilter, compileOperand, guard } from './filter-compiler.js';
import { column, filterColumns, joinColumns, joinCondition, operandColumns } from './operand-compiler.js';
import type { SortTerm } from './dialect-hooks.js';
import type { Statement } from './statement.js';

/** The JSON object of the row `alias` of `level`. */
export function levelObject(level: ReadLevel, st: Statement, alias: string): string {
  return st.dialect.jsonObject(
    level.outputs.map((output) => [
      output.key,
      output.guard ? guard(output.guard, outputValue(output, st, alias), st, alias) : outputValue(output, st, alias),
    ]),
  );
}

/** Columns of `alias` that levelObject reads (what a derived table in between must pass on). */
export function levelColumns(level: ReadLevel, st: Statement, alias: string): string[] {
  const columns = level.outputs.flatMap((output) => [
    ...(output.guard ? filterColumns(output.guard, st, alias) : []),
    ...outputColumns(output, st, alias),
  ]);
  return [...new Set(columns)];
}

function outputColumns(output: PlannedOutput, st: Statement, alias: string): string[] {
  switch (output.kind) {
    case 'value':
      return operandColumns(output.operand, st, alias);
    case 'object':
    case 'list':
      return joinColumns(output.join, st, alias);
    case 'any':
      return [column(st, alias, output.field.field), column(st, alias, output.collectionField.field)];
  }
}

/**
 * The sort of a level as ORDER BY terms. NULLs are placed as each database places them (Directus does the same):
 * a NULLS FIRST/LAST clause would keep PostgreSQL from walking a plain index backward.
 */
export function sortTerms(sort: PlannedSort[], st: Statement, alias: string): SortTerm[] {
  return sort.map((s) => ({ expression: compileOperand(s.operand, st, alias, 'sort'), descending: s.descending }));
}

function outputValue(output: PlannedOutput, st: Statement, alias: string): string {
  const d = st.dialect;
  switch (output.kind) {
    case 'value': {
      const value = compileOperand(output.operand, st, alias, 'raw');
      if (output.as === 'text') return d.toText(value);
      if (output.as === 'number') return d.toFloat(value);
      if (output.operand.kind === 'field') return d.wireValue(value, output.field);
      if (innermost(output.operand).kind !== 'json-path') return value;
      // A JSON value that went through a CASE (a field permission's guard) is embedded as JSON again.
      return d.jsonPathOutput(output.operand.kind !== 'json-path' ? d.embedJson(value) : value);
    }
    case 'object':
      return d.embedJson(relatedObject(output.level, output.join, st, alias));
    case 'list': {
      const related = st.alias();
      const { level, scalar } = output;
      const filter = level.filter ? ` and ${compileFilter(level.filter, st, related)}` : '';
      return d.nestedList({
        element: scalar
          ? d.wireValue(compileOperand(scalar.operand, st, related, 'raw'), scalar.field)
          : levelObject(level, st, related),
        alias: related,
        from: `${d.quote(level.table)} as ${related}`,
        where: `${joinCondition(output.join, st, related, alias)}${filter}`,
        sort: sortTerms(level.sort, st, related),
        limit: level.limit,
        offset: level.offset,
        columns: scalar ? operandColumns(scalar.operand, st, related) : levelColumns(level, st, related),
        key: level.collection.primary
          ? {
              column: column(st, related, level.collection.primary),
              field: level.collection.fields[level.collection.primary]!,
            }
          : null,
        param: (v) => st.param(v),
      });
    }
    case 'any': {
      const item = column(st, alias, output.field.field);
      if (!output.branches.length) return item;
      const cases = output.branches.map(
        (b) => `when ${d.stringLiteral(b.collection)} then ${relatedObject(b.level, b.join, st, alias)}`,
      );
      return d.embedJson(
        `case ${column(st, alias, output.collectionField.field)} ${cases.join(' ')} else ${d.jsonString(item)} end`,
      );
    }
  }
}

function innermost(operand: Operand): Operand {
  return operand.kind === 'guarded' ? innermost(operand.operand) : operand;
}

/** The related row of an m2o (or a2o branch) as a JSON object subquery; null when there is none. */
function relatedObject(level: ReadLevel, join: Join, st: Statement, alias: string): string {
  const d = st.dialect;
  const related = st.alias();
  const filter = level.filter ? ` and ${compileFilter(level.filter, st, related)}` : '';
  return `(select ${levelObject(level, st, related)} from ${d.quote(level.table)} as ${related} where ${joinCondition(join, st, related, alias)}${filter}${d.limitOffset(1, 0, String)})`;
}
