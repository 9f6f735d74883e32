/** Operands (columns, date parts, related counts, JSON lengths, m2o hops) and joins → SQL expressions. */
import type { Join, Operand, PlannedFilter } from '../plan/read-plan.js';
import { compileFilter } from './filter-compiler.js';
import type { Statement } from './statement.js';

export function column(st: Statement, alias: string, name: string): string {
  return `${alias}.${st.dialect.quote(name)}`;
}

/**
 * How an operand is used: `raw` for wire formatting, `compare` for exact comparisons and groups (dates normalised
 * where a dialect stores them several ways), `sort` for ORDER BY (the column as stored, so an index can serve it).
 */
export type OperandUse = 'raw' | 'compare' | 'sort';

/** The expression of `operand` for the row `alias`, in the form `use` asks for. */
export function compileOperand(operand: Operand, st: Statement, alias: string, use: OperandUse): string {
  const d = st.dialect;
  switch (operand.kind) {
    case 'field': {
      const raw = column(st, alias, operand.field.field);
      return use === 'compare' ? d.comparable(raw, operand.field) : use === 'sort' ? d.sortable(raw, operand.field) : raw;
    }
    case 'date-part':
      return d.datePart(operand.part, column(st, alias, operand.field.field), operand.field);
    case 'json-length':
      return d.jsonLength(column(st, alias, operand.field.field), operand.field);
    case 'json-path':
      return d.jsonPath(column(st, alias, operand.field.field), operand.path);
    case 'count-related': {
      const related = st.alias();
      const filter = operand.filter ? ` and ${compileFilter(operand.filter, st, related)}` : '';
      return `(select count(*) from ${d.quote(operand.join.table)} as ${related} where ${joinCondition(operand.join, st, related, alias)}${filter})`;
    }
    case 'related': {
      const related = st.alias();
      const value = compileOperand(operand.operand, st, related, use);
      const filter = operand.filter ? ` and ${compileFilter(operand.filter, st, related)}` : '';
      if (operand.pick) return `(select ${operand.pick}(${value}) from ${d.quote(operand.join.table)} as ${related} where ${joinCondition(operand.join, st, related, alias)}${filter})`;
      return `(select ${value} from ${d.quote(operand.join.table)} as ${related} where ${joinCondition(operand.join, st, related, alias)}${filter}${d.limitOffset(1, 0, String)})`;
    }
    case 'guarded':
      return guard(operand.guard, compileOperand(operand.operand, st, alias, use), st, alias);
  }
}

/** `value` where the caller may read it, NULL elsewhere. */
export function guard(condition: PlannedFilter, value: string, st: Statement, alias: string): string {
  return `case when ${compileFilter(condition, st, alias)} then ${value} end`;
}

/** The condition tying a related row (`related`) to the current row (`local`). */
export function joinCondition(join: Join, st: Statement, related: string, local: string): string {
  const d = st.dialect;
  const relatedColumn = column(st, related, join.relatedField.field);
  const localColumn = column(st, local, join.localField.field);
  if (!join.anyCollectionField) return `${relatedColumn} = ${localColumn}`;
  const collection = column(st, local, join.anyCollectionField.field);
  return `${collection} = ${st.param(join.collection.collection)} and ${relatedColumn} = ${d.keyFromText(localColumn, join.relatedField)}`;
}

/** Columns of the row `alias` that an operand reads (for levels that pass through a derived table). */
export function operandColumns(operand: Operand, st: Statement, alias: string): string[] {
  switch (operand.kind) {
    case 'field':
    case 'date-part':
    case 'json-length':
    case 'json-path':
      return [column(st, alias, operand.field.field)];
    case 'count-related':
    case 'related':
      return joinColumns(operand.join, st, alias);
    case 'guarded':
      return [...operandColumns(operand.operand, st, alias), ...filterColumns(operand.guard, st, alias)];
  }
}

/** Columns of the row `alias` that a filter reads (guards are evaluated after a derived table in between). */
export function filterColumns(filter: PlannedFilter, st: Statement, alias: string): string[] {
  switch (filter.kind) {
    case 'and':
    case 'or':
      return filter.children.flatMap((child) => filterColumns(child, st, alias));
    case 'not':
      return filterColumns(filter.child, st, alias);
    case 'compare':
      return operandColumns(filter.operand, st, alias);
    case 'exists':
      return joinColumns(filter.join, st, alias);
    case 'constant':
      return [];
  }
}

export function joinColumns(join: Join, st: Statement, alias: string): string[] {
  const columns = [column(st, alias, join.localField.field)];
  if (join.anyCollectionField) columns.push(column(st, alias, join.anyCollectionField.field));
  return columns;
}
