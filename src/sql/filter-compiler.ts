/**
 * PlannedFilter → a WHERE condition with bound values. Relational rules are EXISTS subqueries. Operands (columns,
 * date parts, related counts, JSON lengths, m2o hops) are compiled here too: filters and operands nest each other.
 */
import type { Operand, PlannedFilter } from '../plan/read-plan.js';
import type { FieldOverview } from '../schema/types.js';
import { column, joinCondition } from './operand-compiler.js';
import type { Statement } from './statement.js';

/** Types stored as text on every database (LIKE on the column itself; '' counts as empty). */
const TEXTUAL = new Set(['string', 'text', 'csv']);

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}

/** Lists longer than this are bound as one parameter where the dialect can (drivers limit the parameter count). */
const LONG_LIST = 500;

/** `alias` is the quoted alias of the row the filter applies to. */
export function compileFilter(filter: PlannedFilter, st: Statement, alias: string): string {
  switch (filter.kind) {
    case 'constant':
      return filter.value ? '1 = 1' : '1 = 0';
    case 'and':
    case 'or': {
      if (filter.children.length === 0) return filter.kind === 'and' ? '1 = 1' : '1 = 0';
      const joined = filter.children
        .map((c) => compileFilter(c, st, alias))
        .join(filter.kind === 'and' ? ' and ' : ' or ');
      return `(${joined})`;
    }
    case 'not':
      return `not (${compileFilter(filter.child, st, alias)})`;
    case 'exists': {
      const related = st.alias();
      const table = st.dialect.quote(filter.join.table);
      const toOne = filter.join.relatedField.field === filter.join.collection.primary;
      if (!filter.negate && !filter.join.anyCollectionField && toOne) {
        // m2o: the foreign key IN the matching related keys rather than a correlated EXISTS, so the database may
        // start from the (few) related rows and reach the rows through the foreign-key index: SQLite never turns
        // a correlated EXISTS around and would test every row of a large table (counts included). o2m lists keep
        // EXISTS, which stops at the first related row and lets a limited, sorted read stop early; PostgreSQL and
        // MariaDB plan both forms as semi-joins. NOT EXISTS stays (NOT IN mishandles NULLs).
        const inner = filter.filter ? ` where ${compileFilter(filter.filter, st, related)}` : '';
        return `${column(st, alias, filter.join.localField.field)} in (select ${column(st, related, filter.join.relatedField.field)} from ${table} as ${related}${inner})`;
      }
      const inner = filter.filter ? ` and ${compileFilter(filter.filter, st, related)}` : '';
      const subquery = `select 1 from ${table} as ${related} where ${joinCondition(filter.join, st, related, alias)}${inner}`;
      return `${filter.negate ? 'not exists' : 'exists'} (${subquery})`;
    }
    case 'compare': {
      const exact = compileCompare(filter.operand, filter.field, filter.operator, filter.value, st, alias);
      const bound = indexableBound(filter.operand, filter.field, filter.operator, filter.value, st, alias);
      return bound ? `(${bound} and ${exact})` : exact;
    }
  }
}

/** A looser condition on the column as stored that an index can serve, where the dialect's exact form cannot. */
function indexableBound(
  operand: Operand,
  field: FieldOverview,
  operator: string,
  value: unknown,
  st: Statement,
  alias: string,
): string | null {
  const d = st.dialect;
  if (operand.kind !== 'field' || !d.indexableBound || value === null) return null;
  const values = operator === '_between' ? (value as unknown[]) : [value];
  return d.indexableBound(compileOperand(operand, st, alias, 'raw'), field, operator, values, (v) =>
    st.param(d.bind(field, v)),
  );
}

function compileCompare(
  operand: Operand,
  field: FieldOverview,
  operator: string,
  value: unknown,
  st: Statement,
  alias: string,
): string {
  const d = st.dialect;
  const raw = compileOperand(operand, st, alias, 'raw');
  const plainColumn = operand.kind === 'field';
  const column = plainColumn ? d.comparable(raw, field) : raw;
  const bind = (v: unknown) => st.param(d.bind(field, v));
  // Textual fields compare as they are; a type that only reads as text (PostgreSQL enums, inet) through `comparable`.
  const text = plainColumn && TEXTUAL.has(field.type) ? column : d.asText(column);
  const like = (pattern: string, negate: boolean, insensitive: boolean) =>
    `${insensitive ? `lower(${text})` : text} ${negate ? 'not like' : 'like'} ${st.param(pattern)}${d.likeEscape}`;

  switch (operator) {
    case '_eq':
      return value === null ? `${raw} is null` : `${column} = ${bind(value)}`;
    case '_neq':
      return value === null ? `${raw} is not null` : `${column} <> ${bind(value)}`;
    case '_ieq':
      return `lower(${text}) = ${st.param(value)}`;
    case '_nieq':
      return `lower(${text}) <> ${st.param(value)}`;
    case '_lt':
      return `${column} < ${bind(value)}`;
    case '_lte':
      return `${column} <= ${bind(value)}`;
    case '_gt':
      return `${column} > ${bind(value)}`;
    case '_gte':
      return `${column} >= ${bind(value)}`;
    case '_in':
    case '_nin': {
      const values = value as unknown[];
      if (values.length === 0) return operator === '_in' ? '1 = 0' : '1 = 1';
      const long =
        values.length > LONG_LIST
          ? d.listMembership(
              column,
              values.map((v) => d.bind(field, v)),
              operator === '_nin',
              (v) => st.param(v),
            )
          : null;
      if (long) return long;
      return `${column} ${operator === '_in' ? 'in' : 'not in'} (${values.map(bind).join(', ')})`;
    }
    case '_null':
      return `${raw} ${value === false ? 'is not null' : 'is null'}`;
    case '_nnull':
      return `${raw} ${value === false ? 'is null' : 'is not null'}`;
    case '_empty':
    case '_nempty': {
      const empty = plainColumn && TEXTUAL.has(field.type) ? `(${raw} is null or ${raw} = '')` : `${raw} is null`;
      const wantEmpty = (operator === '_empty') === (value !== false);
      return wantEmpty ? empty : `not ${empty}`;
    }
    case '_contains':
    case '_ncontains':
    case '_icontains':
    case '_nicontains':
      return like(`%${escapeLike(String(value))}%`, operator.startsWith('_n'), operator.includes('icontains'));
    case '_starts_with':
    case '_nstarts_with':
    case '_istarts_with':
    case '_nistarts_with':
      return like(`${escapeLike(String(value))}%`, operator.startsWith('_n'), operator.includes('istarts'));
    case '_ends_with':
    case '_nends_with':
    case '_iends_with':
    case '_niends_with':
      return like(`%${escapeLike(String(value))}`, operator.startsWith('_n'), operator.includes('iends'));
    case '_between':
    case '_nbetween': {
      const [low, high] = value as unknown[];
      return `${column} ${operator === '_between' ? 'between' : 'not between'} ${bind(low)} and ${bind(high)}`;
    }
    default:
      throw new Error(`Unplanned operator ${operator}`);
  }
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
      return use === 'compare'
        ? d.comparable(raw, operand.field)
        : use === 'sort'
          ? d.sortable(raw, operand.field)
          : raw;
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
      if (operand.pick)
        return `(select ${operand.pick}(${value}) from ${d.quote(operand.join.table)} as ${related} where ${joinCondition(operand.join, st, related, alias)}${filter})`;
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
