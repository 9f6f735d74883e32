/**
 * Columns and joins → SQL expressions, and the columns operands and filters read. Operands themselves, which nest
 * filters (related counts, m2o hops, guards), are compiled with filters in filter-compiler.ts.
 */
import type { Join, Operand, PlannedFilter } from '../plan/read-plan.js';
import type { Statement } from './statement.js';

export function column(st: Statement, alias: string, name: string): string {
  return `${alias}.${st.dialect.quote(name)}`;
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
