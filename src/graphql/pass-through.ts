/**
 * Plain query documents answered without GraphQL execution. When every root field reads a collection and its
 * selection holds only values (under their own names) and relations — no `__typename`, function fields, m2a unions
 * or renamed values — the database's JSON, read in the JSON form of GraphQL's scalars (plan/graphql-values.ts), is
 * already the answer: it is spliced into the response as text, never parsed. Anything else, and any failure (an
 * error is then reported by the full execution, which runs instead), goes through graphql-jit.
 */
import {
  getArgumentValues,
  getNamedType,
  getVariableValues,
  GraphQLObjectType,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import type { Query } from '../request/query.js';
import type { FieldRead } from './collection-types.js';
import type { GraphQLContext } from './context.js';
import { levelQuery, type RootRead } from './items-root.js';
import { collectFields, type WalkContext } from './selection.js';

interface RootPlan {
  key: string;
  root: RootRead;
  query: Query;
  id: string | null;
}

/** Per operation and variable values: the root reads, or null when the document needs full execution. */
const plans = new WeakMap<OperationDefinitionNode, Map<string, RootPlan[] | null>>();
const MAX_VARIANTS = 20;

export async function passThrough(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: Record<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>,
  context: GraphQLContext,
): Promise<string | null> {
  const roots = plan(schema, operation, fragments, variables);
  if (!roots) return null;
  try {
    const parts = await Promise.all(roots.map(async (r) => `"${r.key}":${dataOf(await read(r, context))}`));
    return `{"data":{${parts.join(',')}}}`;
  } catch {
    return null;
  }
}

function read({ root, query, id }: RootPlan, context: GraphQLContext): Promise<string> {
  const options = { ...root.options, wire: 'graphql' as const };
  const { items } = context.app;
  if (root.kind === 'by_id') return items.readOne(root.collection, id!, query, context.accountability, context.marks, options);
  return items.readMany(root.collection, query, context.accountability, context.marks, options);
}

/** `{"data":X}` (no meta: GraphQL asks for none) → X. */
function dataOf(body: string): string {
  return body.slice('{"data":'.length, -1);
}

function plan(schema: GraphQLSchema, operation: OperationDefinitionNode, fragments: Record<string, FragmentDefinitionNode>, raw: Record<string, unknown>): RootPlan[] | null {
  if (operation.operation !== 'query') return null;
  const key = operation.variableDefinitions?.length ? JSON.stringify(raw) : '';
  let variants = plans.get(operation);
  if (variants?.has(key)) return variants.get(key)!;
  let roots: RootPlan[] | null;
  try {
    roots = planRoots(schema, operation, fragments, raw);
  } catch {
    roots = null;
  }
  if (!variants) plans.set(operation, (variants = new Map()));
  if (variants.size >= MAX_VARIANTS) variants.clear();
  variants.set(key, roots);
  return roots;
}

function planRoots(schema: GraphQLSchema, operation: OperationDefinitionNode, fragments: Record<string, FragmentDefinitionNode>, raw: Record<string, unknown>): RootPlan[] | null {
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], raw);
  if (coerced.errors) return null;
  const variables = coerced.coerced;
  const queryType = schema.getQueryType();
  if (!queryType) return null;
  const defs = queryType.getFields();
  const roots: RootPlan[] = [];
  const selections = collectFields(queryType.name, [operation.selectionSet], { fragments, variables, options: { queryLimitMax: Infinity } });
  for (const [key, nodes] of selections) {
    const def = defs[nodes[0]!.name.value];
    const root = (def?.extensions?.strata as { root?: RootRead } | undefined)?.root;
    // A singleton without its row reads as {id: null} in the engine, where GraphQL answers every selected field.
    if (!def || !root || root.kind === 'singleton') return null;
    const ctx: WalkContext = { fragments, variables, options: root.limits, keyLists: false };
    const type = getNamedType(def.type) as GraphQLObjectType;
    if (!plain(type, nodes, ctx)) return null;
    const args = getArgumentValues(def, nodes[0]!, variables);
    // As the resolvers do: only lists take query arguments (`_by_id`'s id names the row).
    const query = levelQuery(type, nodes, root.kind === 'list' ? args : {}, def.args.find((a) => a.name === 'filter')?.type, ctx, root.limits);
    roots.push({ key, root, query, id: root.kind === 'by_id' ? String(args.id) : null });
  }
  return roots.length ? roots : null;
}

/** Only values under their own names and relations whose selections are plain too. */
function plain(type: GraphQLObjectType, nodes: readonly FieldNode[], ctx: WalkContext): boolean {
  const defs = type.getFields();
  for (const [key, fieldNodes] of collectFields(type.name, nodes.map((n) => n.selectionSet), ctx)) {
    const def = defs[fieldNodes[0]!.name.value];
    const read = def?.extensions?.strata as FieldRead | undefined;
    if (!def || !read) return false;
    if (read.kind === 'value') {
      if (key !== read.field) return false;
    } else if (read.kind === 'm2o' || read.kind === 'o2m') {
      if (!plain(getNamedType(def.type) as GraphQLObjectType, fieldNodes, ctx)) return false;
    } else {
      return false;
    }
  }
  return true;
}
