/**
 * The hook events of a read, as Directus raises them: the filter `items.query` / `<collection>.items.query` (system
 * collections: `users.query`…) gets the query in Directus's shape (`fields`, `filter`, `sort`, `limit`, `offset`,
 * `page`, `search`) and `{collection}` before the read is planned, and the query it answers is read; the action
 * `items.read` / `<collection>.items.read` gets the rows as `payload` and `{query, collection}` once the answer has
 * gone (decoded on a later turn of the event loop, never on the request's path). With no handler registered a read
 * pays one size check of the emitter's maps.
 */
import type { Executor } from '../../db/connection.js';
import { InvalidQueryError } from '../../errors/catalogue.js';
import type { Accountability } from '../../permissions/accountability.js';
import { countedFilter } from '../../request/parse-query.js';
import type { FilterNode, Query, ScalarValue } from '../../request/query.js';
import type { SchemaOverview } from '../../schema/types.js';
import type { EventEmitter } from '../events/event-emitter.js';
import { itemsEventNames } from '../events/event-names.js';

type DirectusQuery = Record<string, unknown>;

/** The query after the `query` filters (the same object when none is registered). */
export async function filterReadQuery(
  events: EventEmitter | undefined,
  collection: string,
  query: Query,
  accountability: Accountability | null,
  schema: SchemaOverview,
  database: Executor,
): Promise<Query> {
  if (!events?.hasAnyFilter()) return query;
  const names = itemsEventNames(collection, 'query');
  if (!events.hasFilter(names)) return query;
  const view = directusQuery(query);
  const answer = await events.emitFilter<unknown>(names, view, { collection }, { accountability, schema, database });
  if (!answer || typeof answer !== 'object' || Array.isArray(answer)) return query;
  return fromDirectus(answer as DirectusQuery, query);
}

/** Starts the `read` actions of a read's answer (`json`: the database's text) without waiting for them. */
export function announceRead(
  events: EventEmitter | undefined,
  collection: string,
  query: Query,
  json: string,
  accountability: Accountability | null,
  schema: SchemaOverview,
  database: Executor,
): void {
  if (!events?.hasAnyAction()) return;
  const names = itemsEventNames(collection, 'read');
  if (!events.hasAction(names)) return;
  const meta = () => {
    const data = JSON.parse(json) as unknown;
    return { payload: Array.isArray(data) ? data : [data], query: directusQuery(query), collection };
  };
  events.emitActionLater(names, meta, { accountability, schema, database });
}

function directusQuery(query: Query): DirectusQuery {
  const out: DirectusQuery = {};
  if (query.fields) out.fields = [...query.fields];
  if (query.filter) out.filter = filterJson(query.filter);
  if (query.sort) out.sort = query.sort.map((s) => (s.order === 'desc' ? '-' : '') + s.field);
  if (query.limit !== undefined) out.limit = query.limit;
  if (query.offset !== undefined) out.offset = query.offset;
  if (query.page !== undefined) out.page = query.page;
  if (query.search !== undefined) out.search = query.search;
  if (query.meta) out.meta = [...query.meta];
  return out;
}

/** A handler's query back into the IR; what the view does not show (deep, alias, aggregate…) is kept. */
function fromDirectus(answer: DirectusQuery, before: Query): Query {
  const query: Query = { ...before };
  delete query.filter;
  delete query.filterDepth;
  delete query.fields;
  delete query.sort;
  delete query.limit;
  delete query.offset;
  delete query.page;
  delete query.search;
  if (answer.fields !== undefined) query.fields = strings(answer.fields, 'fields');
  if (answer.filter !== undefined && answer.filter !== null) Object.assign(query, countedFilter(answer.filter));
  if (answer.sort !== undefined)
    query.sort = strings(answer.sort, 'sort').map((s) =>
      s.startsWith('-') ? { field: s.slice(1), order: 'desc' as const } : { field: s, order: 'asc' as const },
    );
  for (const name of ['limit', 'offset', 'page'] as const) {
    const value = answer[name];
    if (value === undefined || value === null) continue;
    if (!Number.isSafeInteger(value) || (value as number) < (name === 'limit' ? -1 : 0))
      throw new InvalidQueryError(`A query hook answered an invalid "${name}"`);
    query[name] = value as number;
  }
  if (typeof answer.search === 'string' && answer.search !== '') query.search = answer.search;
  return query;
}

function strings(value: unknown, name: string): string[] {
  const list = typeof value === 'string' ? value.split(',') : value;
  if (!Array.isArray(list) || list.some((item) => typeof item !== 'string'))
    throw new InvalidQueryError(`A query hook answered an invalid "${name}"`);
  return (list as string[]).map((s) => s.trim()).filter((s) => s !== '');
}

/** The IR's filter in Directus's JSON form (dynamic values as their `$` strings). */
function filterJson(node: FilterNode): Record<string, unknown> {
  if (node.type === 'logical') return { [node.operator]: node.children.map(filterJson) };
  if (node.type === 'relation') {
    const inner = filterJson(node.filter);
    return { [node.field]: node.quantifier ? { [node.quantifier]: inner } : inner };
  }
  const value = Array.isArray(node.value) ? node.value.map(scalarJson) : scalarJson(node.value);
  return { [node.field]: { [node.operator]: value } };
}

function scalarJson(value: ScalarValue): unknown {
  if (value === null || typeof value !== 'object') return value;
  switch (value.dynamic) {
    case 'NOW':
      return value.offsetMs ? `$NOW(${value.offsetMs} ms)` : '$NOW';
    case 'CURRENT_USER':
    case 'CURRENT_ROLE':
      return `$${value.dynamic}${value.path ? `.${value.path.join('.')}` : ''}`;
    default:
      return `$${value.dynamic}`;
  }
}
