/** Vendor-neutral pieces the dialects' introspection shares. */
import type { ColumnInfo, ForeignKeyInfo } from '../schema/types.js';

/** A row of a database catalog query: its columns' types differ per database, read loosely by the code that knows them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type CatalogRow = Record<string, any>;

const ACTIONS: Record<string, string> = {
  'NO ACTION': 'NO ACTION',
  RESTRICT: 'RESTRICT',
  CASCADE: 'CASCADE',
  'SET NULL': 'SET NULL',
  'SET DEFAULT': 'SET DEFAULT',
};

export function normalizeAction(action: string | null | undefined): string | null {
  if (!action) return null;
  return ACTIONS[action.toUpperCase()] ?? null;
}

/**
 * A column default as the catalog writes it → a JS value: literals become numbers, strings (unquoted, casts
 * dropped) and booleans; clock functions become `CURRENT_TIMESTAMP`, date functions `CURRENT_DATE` and random uuid
 * functions `gen_random_uuid()` (one spelling for every database, so that snapshots compare); other expressions stay
 * as text.
 */
export function parseDefaultValue(raw: unknown): unknown {
  if (raw === null || raw === undefined) return null;
  if (typeof raw !== 'string') return raw;
  let text = raw.trim();
  if (text === '' || text.toUpperCase() === 'NULL') return null;
  // Casts such as 'draft'::character varying or (0)::numeric; not one inside parentheses (`(now() at time zone
  // 'utc'::text)`), whose closing parenthesis the pattern would take with it.
  const uncast = text.replace(/::[\w\s"[\]().]+$/, '').trim();
  if (balanced(uncast)) text = uncast;
  while (wrappedInParentheses(text)) text = text.slice(1, -1).trim();
  const quoted = /^'((?:[^']|'')*)'$/s.exec(text);
  if (quoted) return quoted[1]!.replace(/''/g, "'");
  if (/^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(text)) return numericDefault(text);
  if (/^true$/i.test(text)) return true;
  if (/^false$/i.test(text)) return false;
  if (/^(now\(\)|current_timestamp(\(\d*\))?|localtimestamp(\(\d*\))?|getdate\(\)|datetime\('now'\))$/i.test(text))
    return 'CURRENT_TIMESTAMP';
  if (/^(current_date(\(\))?|curdate\(\)|date\('now'\))$/i.test(text)) return 'CURRENT_DATE';
  if (/^(gen_random_uuid|uuid|uuid_generate_v4)\(\)$/i.test(text)) return 'gen_random_uuid()';
  return text;
}

/** Whether every parenthesis outside quotes closes. */
function balanced(text: string): boolean {
  let depth = 0;
  for (const ch of text.replace(/'(?:[^']|'')*'/g, "''")) {
    if (ch === '(') depth++;
    else if (ch === ')' && --depth < 0) return false;
  }
  return depth === 0;
}

/** `(0)` yes, `(a) + (b)` no: the first parenthesis must close at the very end. */
function wrappedInParentheses(text: string): boolean {
  if (!text.startsWith('(') || !text.endsWith(')')) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return i === text.length - 1;
  }
  return false;
}

/** A quoted numeric literal in a numeric column (PostgreSQL writes `'-1.5'::real`) is a number all the same. */
export function numericDefault(value: unknown): unknown {
  if (typeof value !== 'string' || !/^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(value)) return value;
  const n = Number(value);
  return Number.isSafeInteger(n) || !/^-?\d+$/.test(value) ? n : value;
}

export function emptyColumn(table: string, name: string): ColumnInfo {
  return {
    name,
    table,
    data_type: 'unknown',
    default_value: null,
    max_length: null,
    numeric_precision: null,
    numeric_scale: null,
    is_generated: false,
    generation_expression: null,
    is_nullable: true,
    is_unique: false,
    is_indexed: false,
    is_primary_key: false,
    has_auto_increment: false,
    foreign_key_column: null,
    foreign_key_table: null,
    comment: null,
  };
}

export interface IndexColumn {
  table: string;
  index: string;
  column: string;
  position: number;
  unique: boolean;
  primary: boolean;
}

/** Marks is_indexed / is_unique / is_primary_key from index rows and FK facts from foreign keys. */
export function applyIndexesAndKeys(
  columns: ColumnInfo[],
  indexes: IndexColumn[],
  foreignKeys: ForeignKeyInfo[],
): string[] {
  const byIndex = new Map<string, IndexColumn[]>();
  for (const row of indexes) {
    const key = `${row.table}\u0000${row.index}`;
    byIndex.set(key, [...(byIndex.get(key) ?? []), row]);
  }
  const primary: string[] = [];
  for (const rows of byIndex.values()) {
    rows.sort((a, b) => a.position - b.position);
    const first = rows[0]!;
    const column = columns.find((c) => c.name === first.column);
    if (column) column.is_indexed = true;
    if (first.unique && rows.length === 1 && column) column.is_unique = true;
    if (first.primary) {
      for (const row of rows) {
        primary.push(row.column);
        const c = columns.find((x) => x.name === row.column);
        if (c) c.is_primary_key = true;
      }
    }
  }
  for (const fk of foreignKeys) {
    const column = columns.find((c) => c.name === fk.column);
    if (column) {
      column.foreign_key_table = fk.foreign_key_table;
      column.foreign_key_column = fk.foreign_key_column;
    }
  }
  return primary;
}

export function groupBy<T>(rows: T[], key: (row: T) => string): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    const list = map.get(k);
    if (list) list.push(row);
    else map.set(k, [row]);
  }
  return map;
}

export function toNumber(value: unknown): number | null {
  if (value === null || value === undefined || value === '') return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}
