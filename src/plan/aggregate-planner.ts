/**
 * `aggregate` + `groupBy` (Directus docs: Query parameters: aggregate) → the groups and aggregates of an aggregate read. Groups may be fields,
 * function fields or — beyond Directus — m2o paths (`author.name`, answered as nested objects).
 */
import { InvalidQueryError } from '../errors/catalogue.js';
import type { Query } from '../request/query.js';
import type { CollectionOverview } from '../schema/types.js';
import { fieldOf, guarded, resolvePath, type OperandScope } from './operands.js';
import type { AggregatePlan, PlannedAggregate, PlannedGroup } from './read-plan.js';
import { aggregateApplies, aggregateNeeds, groupable } from './type-rules.js';

const FUNCTIONS = new Set<PlannedAggregate['fn']>([
  'count',
  'countDistinct',
  'countAll',
  'sum',
  'sumDistinct',
  'avg',
  'avgDistinct',
  'min',
  'max',
]);

export function planAggregate(scope: OperandScope, collection: CollectionOverview, query: Query): AggregatePlan {
  const aggregates: PlannedAggregate[] = [];
  for (const [name, fields] of Object.entries(query.aggregate ?? {})) {
    if (!FUNCTIONS.has(name as PlannedAggregate['fn']))
      throw new InvalidQueryError(`Unknown aggregate function "${name}"`);
    const fn = name as PlannedAggregate['fn'];
    if (fn === 'countAll') {
      aggregates.push({ path: ['countAll'], fn, field: null, operand: null });
      continue;
    }
    const all = fields.includes('*');
    if (all && fields.length > 1) throw new InvalidQueryError(`"aggregate[${fn}]" can't mix "*" with field names`);
    if (all) {
      if (fn !== 'count') throw new InvalidQueryError(`"aggregate[${fn}]" needs field names; only count takes "*"`);
      aggregates.push({ path: [fn], fn, field: null, operand: null });
      continue;
    }
    for (const fieldName of fields) {
      const field = fieldOf(scope, collection, fieldName, 'root');
      if (!field.schema)
        throw new InvalidQueryError(`"aggregate[${fn}]" can't use "${fieldName}": it holds no value of its own`);
      // Counting values says no more than _nnull does; every other aggregate would reveal something of them.
      if (field.concealed && fn !== 'count')
        throw new InvalidQueryError(`Field "${fieldName}" is concealed and can't be aggregated with ${fn}`);
      if (!aggregateApplies(fn, field.type))
        throw new InvalidQueryError(
          `"aggregate[${fn}]" needs ${aggregateNeeds(fn)}; "${fieldName}" is of type ${field.type}`,
        );
      aggregates.push({
        path: [fn, fieldName],
        fn,
        field,
        operand: guarded(scope, collection, fieldName, { kind: 'field', field }),
      });
    }
  }

  const groups = (query.groupBy ?? []).map((path): PlannedGroup => {
    const resolved = resolvePath(scope, collection, path, 'root');
    if (resolved.field.concealed) throw new InvalidQueryError(`Field "${path}" is concealed and can't be grouped by`);
    if (!groupable(resolved.field.type))
      throw new InvalidQueryError(`"groupBy" can't use "${path}" of type ${resolved.field.type}`);
    return { path: resolved.keys, operand: resolved.operand, field: resolved.field };
  });
  if (!aggregates.length && !groups.length) throw new InvalidQueryError('"aggregate" needs at least one function');

  const groupNames = query.groupBy ?? [];
  const sort = (query.sort ?? []).map((clause) => {
    const group = groupNames.indexOf(clause.field);
    if (group >= 0) return { target: 'group' as const, index: group, descending: clause.order === 'desc' };
    const aggregate = aggregates.findIndex((a) => a.path.join('.') === clause.field);
    if (aggregate >= 0) return { target: 'aggregate' as const, index: aggregate, descending: clause.order === 'desc' };
    throw new InvalidQueryError(
      `"sort" of an aggregate query can only use its groupBy fields or aggregates ("${clause.field}")`,
    );
  });
  // Groups not named in `sort` follow in groupBy order, so the order of the groups is always fully defined.
  for (let index = 0; index < groups.length; index++) {
    if (!sort.some((s) => s.target === 'group' && s.index === index))
      sort.push({ target: 'group', index, descending: false });
  }
  return { groups, aggregates, sort };
}
