/**
 * The Subscription root of /graphql (Directus docs: GraphQL, Subscriptions): per collection the caller may read,
 * `<c>_mutated(event: EventEnum): <c>_mutated` with `key: ID!`, `event: EventEnum` and `data: <c>` typed as the
 * caller's collection type (null on delete). The resolver turns the `data` selection into one Query IR, as a root
 * query field does, so each change is read with its nested relations in one statement per event and subscriber.
 */
import {
  GraphQLEnumType,
  GraphQLID,
  GraphQLNonNull,
  GraphQLObjectType,
  type FieldNode,
  type GraphQLFieldConfigMap,
  type GraphQLResolveInfo,
} from 'graphql';
import type { Query } from '../request/query.js';
import { checkDepth } from '../request/parse-query.js';
import type { CollectionView } from './access-view.js';
import type { TypeSet } from './collection-types.js';
import type { GraphQLContext } from './context.js';
import type { ReadLimits } from './items-root.js';
import { collectFields, levelOf } from './selection.js';
import { mutationEvents, SubscriptionEnded, type MutationEventName } from './subscription-events.js';

type Fields = GraphQLFieldConfigMap<unknown, GraphQLContext>;

export const EVENT_ENUM = new GraphQLEnumType({
  name: 'EventEnum',
  values: { create: { value: 'create' }, update: { value: 'update' }, delete: { value: 'delete' } },
});

export function subscriptionFields(types: TypeSet, views: CollectionView[], limits: ReadLimits): Fields {
  const fields: Fields = {};
  for (const view of views) {
    // The `key` of every message is the item's key: a collection without one has nothing to announce by.
    if (!view.collection.keyFields.length) continue;
    // A collection named `<c>_mutated` keeps its own type; `<c>` then has no subscription.
    if (views.some((other) => other.typeName === `${view.typeName}_mutated`)) continue;
    const name = view.collection.collection;
    const type = new GraphQLObjectType({
      name: `${view.typeName}_mutated`,
      fields: {
        key: { type: new GraphQLNonNull(GraphQLID) },
        event: { type: EVENT_ENUM },
        data: { type: types.object(name) },
      },
    });
    fields[`${view.typeName}_mutated`] = {
      type,
      args: { event: { type: EVENT_ENUM } },
      subscribe: (_root, args: { event?: MutationEventName | null }, ctx, info) =>
        mutationEvents(ctx, name, dataQuery(type, view, info, limits), args.event ?? null),
      // Each event is the `<c>_mutated` object itself; an ending carries the error the client gets.
      resolve: (event: unknown) => {
        if (event instanceof SubscriptionEnded) throw event.error;
        return event;
      },
    };
  }
  return fields;
}

/** The Query IR of the `data` selections (with the key fields, which every message carries as `key`). */
function dataQuery(type: GraphQLObjectType, view: CollectionView, info: GraphQLResolveInfo, limits: ReadLimits): Query {
  const ctx = { fragments: info.fragments, variables: info.variableValues, options: limits };
  const dataNodes: FieldNode[] = [];
  for (const nodes of collectFields(
    type.name,
    info.fieldNodes.map((n) => n.selectionSet),
    ctx,
  ).values())
    for (const node of nodes) if (node.name.value === 'data') dataNodes.push(node);
  const keys = view.collection.keyFields;
  if (!dataNodes.length) return { fields: [...keys] };
  const level = levelOf(type.getFields().data!.type as GraphQLObjectType, dataNodes, ctx);
  const selected = level.fields.length ? level.fields : ['*'];
  const query: Query = {
    fields: selected.includes('*') ? selected : [...selected, ...keys.filter((k) => !selected.includes(k))],
  };
  if (Object.keys(level.alias).length) query.alias = level.alias;
  if (Object.keys(level.deep).length) query.deep = level.deep;
  checkDepth(query, limits.maxRelationalDepth, level.depth);
  return query;
}
