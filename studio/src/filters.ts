/**
 * Filters as the editors show them (rows of field, operator, value) and as the API takes them (Directus filter
 * objects). Operators offered follow the field's type; values are typed from the field before they are sent.
 */
import type { Field } from './session';

export interface FilterRow {
  field: string;
  operator: string;
  value: string;
}

export const OPERATOR_LABELS: Record<string, string> = {
  _eq: 'equals',
  _neq: "doesn't equal",
  _lt: 'less than',
  _lte: 'less than or equal',
  _gt: 'greater than',
  _gte: 'greater than or equal',
  _contains: 'contains',
  _ncontains: "doesn't contain",
  _icontains: 'contains (any case)',
  _starts_with: 'starts with',
  _ends_with: 'ends with',
  _in: 'is one of',
  _nin: 'is none of',
  _between: 'is between',
  _null: 'is null',
  _nnull: 'is not null',
  _empty: 'is empty',
  _nempty: 'is not empty',
};

const TEXT = [
  '_eq',
  '_neq',
  '_contains',
  '_ncontains',
  '_icontains',
  '_starts_with',
  '_ends_with',
  '_in',
  '_nin',
  '_null',
  '_nnull',
  '_empty',
  '_nempty',
];
const ORDERED = ['_eq', '_neq', '_lt', '_lte', '_gt', '_gte', '_between', '_in', '_nin', '_null', '_nnull'];

export function operatorsFor(field: Field | undefined): string[] {
  const type = field?.type ?? 'string';
  if (type === 'boolean') return ['_eq', '_neq', '_null', '_nnull'];
  if (type === 'json') return ['_null', '_nnull'];
  if (['integer', 'bigInteger', 'float', 'decimal', 'date', 'dateTime', 'time', 'timestamp'].includes(type))
    return ORDERED;
  return TEXT;
}

/** Operators that take no value (the API wants `true`). */
export const NO_VALUE = new Set(['_null', '_nnull', '_empty', '_nempty']);

function typed(value: string, field: Field | undefined): unknown {
  const type = field?.type;
  if (value.startsWith('$')) return value; // $CURRENT_USER, $NOW and friends pass as they are
  if (type === 'boolean') return value === 'true';
  if (type === 'integer' || type === 'float')
    return value.trim() === '' || isNaN(Number(value)) ? value : Number(value);
  return value;
}

export function rowToCondition(row: FilterRow, field: Field | undefined): Record<string, unknown> {
  let value: unknown;
  if (NO_VALUE.has(row.operator)) value = true;
  else if (row.operator === '_in' || row.operator === '_nin' || row.operator === '_between') {
    value = row.value.split(',').map((v) => typed(v.trim(), field));
  } else value = typed(row.value, field);
  return { [row.field]: { [row.operator]: value } };
}

export function rowsToFilter(rows: FilterRow[], fields: Field[]): Record<string, unknown> | null {
  const conditions = rows
    .filter((r) => r.field && r.operator)
    .map((r) =>
      rowToCondition(
        r,
        fields.find((f) => f.field === r.field),
      ),
    );
  if (!conditions.length) return null;
  return conditions.length === 1 ? conditions[0]! : { _and: conditions };
}

/** Rows of a filter made of simple conditions joined by _and; null when the filter is anything richer. */
export function filterToRows(filter: unknown): FilterRow[] | null {
  if (filter === null || filter === undefined) return [];
  if (typeof filter !== 'object' || Array.isArray(filter)) return null;
  const entries = Object.entries(filter as Record<string, unknown>);
  if (entries.length === 1 && entries[0]![0] === '_and' && Array.isArray(entries[0]![1])) {
    const rows: FilterRow[] = [];
    for (const part of entries[0]![1] as unknown[]) {
      const more = filterToRows(part);
      if (!more) return null;
      rows.push(...more);
    }
    return rows;
  }
  const rows: FilterRow[] = [];
  for (const [field, condition] of entries) {
    if (field.startsWith('_') || !condition || typeof condition !== 'object' || Array.isArray(condition)) return null;
    const ops = Object.entries(condition as Record<string, unknown>);
    if (ops.length !== 1 || !ops[0]![0].startsWith('_')) return null;
    const [operator, value] = ops[0]!;
    rows.push({
      field,
      operator,
      value: NO_VALUE.has(operator) ? '' : Array.isArray(value) ? value.join(',') : String(value),
    });
  }
  return rows;
}
