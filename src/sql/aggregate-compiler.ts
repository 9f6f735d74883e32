/**
 * Aggregate reads (`aggregate` + `groupBy`): the level's rows are reduced to the values grouped and aggregated
 * (m2o paths and date parts computed per row first), grouped and aggregated, sorted, limited, and turned into JSON
 * objects keyed as the reference shows (`{"author": 1, "count": 3}`, `{"sum": {"price": 340}}`).
 */
import type { AggregatePlan, PlannedAggregate, ReadPlan } from '../plan/read-plan.js';
import type { SqlDialect } from './dialect-hooks.js';
import { compileOperand } from './operand-compiler.js';
import { ROW_NUMBER } from './nested-list.js';
import type { Statement } from './statement.js';

export function compileAggregate(plan: ReadPlan, aggregate: AggregatePlan, st: Statement, row: string, where: string): string {
  const d = st.dialect;
  const q = (id: string) => d.quote(id);
  const { groups, aggregates } = aggregate;

  const values = [
    ...groups.map((g, i) => `${compileOperand(g.operand, st, row, true)} as ${q(`g${i}`)}`),
    ...aggregates.flatMap((a, i) => (a.operand ? [`${compileOperand(a.operand, st, row, a.fn === 'min' || a.fn === 'max')} as ${q(`v${i}`)}`] : [])),
  ];
  const rows = `select ${values.length ? values.join(', ') : `1 as ${q('one')}`} from ${q(plan.table)} as ${row}${where}`;

  const grouped = st.alias();
  const groupColumns = groups.map((_, i) => `${grouped}.${q(`g${i}`)}`);
  const aggregateExpressions = aggregates.map((a, i) => aggregateExpression(a, `${grouped}.${q(`v${i}`)}`));
  const order = aggregate.sort
    .map((s) => `${s.target === 'group' ? groupColumns[s.index] : aggregateExpressions[s.index]} ${s.descending ? 'desc' : 'asc'}${d.nullsOrder(s.descending)}`)
    .join(', ');
  const rowNumber = q(ROW_NUMBER);
  const selected = [
    ...groupColumns.map((c, i) => `${c} as ${q(`g${i}`)}`),
    ...aggregateExpressions.map((e, i) => `${e} as ${q(`a${i}`)}`),
    // Without groups there is one row. MariaDB 10.11 reads min/max as null when a window function sits beside
    // them and another aggregate over a merged derived table, so the window is only used where it is needed.
    `${groups.length ? `row_number() over (${order ? `order by ${order}` : ''})` : '1'} as ${rowNumber}`,
  ];
  const window = groups.length ? d.limitOffset(plan.limit, plan.offset, (v) => st.param(v)) : '';
  const reduced = `select ${selected.join(', ')} from (${rows}) as ${grouped}${groups.length ? ` group by ${groupColumns.join(', ')}` : ''}${order ? ` order by ${order}` : ''}${window}`;

  const out = st.alias();
  const object = nestedObject(d, [
    ...groups.map((g, i) => ({ path: g.path, expression: d.wireValue(`${out}.${q(`g${i}`)}`, g.field) })),
    ...aggregates.map((a, i) => ({ path: a.path, expression: aggregateWire(d, a, `${out}.${q(`a${i}`)}`) })),
  ]);
  return `(select ${d.jsonArrayText(object, `${out}.${rowNumber}`)} from (${reduced}) as ${out})`;
}

function aggregateExpression(a: PlannedAggregate, value: string): string {
  switch (a.fn) {
    case 'count':
      return a.field ? `count(${value})` : 'count(*)';
    case 'countAll':
      return 'count(*)';
    case 'countDistinct':
      return `count(distinct ${value})`;
    case 'sum':
      return `sum(${value})`;
    case 'sumDistinct':
      return `sum(distinct ${value})`;
    case 'avg':
      return `avg(${value})`;
    case 'avgDistinct':
      return `avg(distinct ${value})`;
    case 'min':
      return `min(${value})`;
    case 'max':
      return `max(${value})`;
  }
}

/** Counts and averages are numbers; sums keep their field's wire form (exact strings for big integers and decimals). */
function aggregateWire(d: SqlDialect, a: PlannedAggregate, value: string): string {
  switch (a.fn) {
    case 'count':
    case 'countAll':
    case 'countDistinct':
      return value;
    case 'avg':
    case 'avgDistinct':
      return d.toFloat(value);
    default:
      return a.field!.type === 'integer' || a.field!.type === 'float' ? value : d.wireValue(value, a.field!);
  }
}

function nestedObject(d: SqlDialect, entries: { path: string[]; expression: string }[]): string {
  type Tree = Map<string, string | Tree>;
  const root: Tree = new Map();
  for (const { path, expression } of entries) {
    let node = root;
    for (const key of path.slice(0, -1)) {
      let child = node.get(key);
      if (typeof child !== 'object') node.set(key, (child = new Map()));
      node = child;
    }
    node.set(path[path.length - 1]!, expression);
  }
  const build = (tree: Tree): string => d.jsonObject([...tree].map(([key, value]) => [key, typeof value === 'string' ? value : build(value)]));
  return build(root);
}
