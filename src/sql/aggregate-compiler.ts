/**
 * Aggregate reads (`aggregate` + `groupBy`): the level's rows are reduced to the values grouped and aggregated
 * (m2o paths and date parts computed per row first), grouped and aggregated, sorted, limited, and turned into JSON
 * objects keyed as the reference shows (`{"author": 1, "count": 3}`, `{"sum": {"price": 340}}`).
 */
import type { AggregatePlan, PlannedAggregate, ReadPlan } from '../plan/read-plan.js';
import type { SqlDialect } from './dialect-hooks.js';
import { compileOperand } from './filter-compiler.js';
import type { Statement } from './statement.js';

export function compileAggregate(
  plan: ReadPlan,
  aggregate: AggregatePlan,
  st: Statement,
  row: string,
  where: string,
): string {
  const d = st.dialect;
  const q = (id: string) => d.quote(id);
  const { groups, aggregates } = aggregate;

  const values = [
    ...groups.map((g, i) => `${compileOperand(g.operand, st, row, 'compare')} as ${q(`g${i}`)}`),
    ...aggregates.flatMap((a, i) =>
      a.operand
        ? [
            `${compileOperand(a.operand, st, row, a.fn === 'min' || a.fn === 'max' ? 'compare' : 'raw')} as ${q(`v${i}`)}`,
          ]
        : [],
    ),
  ];
  const rows = `select ${values.length ? values.join(', ') : `1 as ${q('one')}`} from ${q(plan.table)} as ${row}${where}`;

  const grouped = st.alias();
  const groupColumns = groups.map((_, i) => `${grouped}.${q(`g${i}`)}`);
  const aggregateExpressions = aggregates.map((a, i) => aggregateExpression(a, `${grouped}.${q(`v${i}`)}`));
  const terms = aggregate.sort.map((s) => ({
    column: s.target === 'group' ? `g${s.index}` : `a${s.index}`,
    descending: s.descending,
  }));
  const direction = (descending: boolean) => (descending ? 'desc' : 'asc');
  const order = aggregate.sort
    .map(
      (s) =>
        `${s.target === 'group' ? groupColumns[s.index] : aggregateExpressions[s.index]} ${direction(s.descending)}`,
    )
    .join(', ');
  const selected = [
    ...groupColumns.map((c, i) => `${c} as ${q(`g${i}`)}`),
    ...aggregateExpressions.map((e, i) => `${e} as ${q(`a${i}`)}`),
  ];
  const window = groups.length ? d.limitOffset(plan.limit, plan.offset, (v) => st.param(v)) : '';
  const reduced = `select ${selected.join(', ')} from (${rows}) as ${grouped}${groups.length ? ` group by ${groupColumns.join(', ')}` : ''}${order ? ` order by ${order}` : ''}${window}`;

  const out = st.alias();
  const object = nestedObject(d, [
    ...groups.map((g, i) => ({ path: g.path, expression: d.wireValue(`${out}.${q(`g${i}`)}`, g.field) })),
    ...aggregates.map((a, i) => ({ path: a.path, expression: aggregateWire(d, a, `${out}.${q(`a${i}`)}`) })),
  ]);
  // The kept groups are ordered again by their own columns in the JSON aggregate (only those rows are sorted).
  const outerOrder = terms.map((t) => `${out}.${q(t.column)} ${direction(t.descending)}`).join(', ');
  return `(select ${d.jsonArrayText(object, outerOrder)} from (${reduced}) as ${out})`;
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
      return d.average(value);
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
  const build = (tree: Tree): string =>
    d.jsonObject([...tree].map(([key, value]) => [key, typeof value === 'string' ? value : build(value)]));
  return build(root);
}
