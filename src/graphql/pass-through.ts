/**
 * Plain query documents answered without GraphQL execution. When every root field reads a collection and its
 * selection holds only values (under their own names) and relations — no `__typename`, function fields, m2a unions
 * or renamed values — the database's JSON, read in the JSON form of GraphQL's scalars (graphql-values.ts), is
 * already the answer: it is spliced into the response as text, never parsed. Anything else goes through
 * graphql-jit instead, decided before any statement runs, so an operation runs once. A root read that fails is
 * answered here as execution would answer it: the error at its path, the root null (and `data` null when the root
 * is non-null).
 */
import {
  getArgumentValues,
  getNamedType,
  getVariableValues,
  GraphQLError,
  GraphQLObjectType,
  isNonNullType,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { Cache } from '../cache/cache.js';
import { ServiceError } from '../errors/catalogue.js';
import type { Query } from '../request/query.js';
import type { FieldRead } from './collection-types.js';
import type { GraphQLContext } from './context.js';
import { GRAPHQL_VALUES } from './graphql-values.js';
import { levelQuery, type RootRead } from './items-root.js';
import { collectFields, type WalkContext } from './selection.js';

interface RootPlan {
  key: string;
  /** `"key":`, the start of the root's member of `data`. */
  member: string;
  root: RootRead;
  /** The read engine's options for the root (its own, in GraphQL's value form). */
  options: RootRead['options'] & { form: typeof GRAPHQL_VALUES };
  query: Query;
  id: string | null;
  nodes: readonly FieldNode[];
  nonNull: boolean;
}

/** Root plans of one operation per variable values (`false`: the document needs full execution). */
export type PassThroughPlans = Cache<string, RootPlan[] | false>;

/** Variable values remembered per operation. */
const MAX_VARIANTS = 20;

export function passThroughPlans(): PassThroughPlans {
  return new Cache('graphql-pass-through', { max: MAX_VARIANTS });
}

/** The response body, or null when the document is not plain (nothing has run then). */
export async function passThrough(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: Record<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>,
  plans: PassThroughPlans,
  context: GraphQLContext,
  formatErrors: (error: GraphQLError) => Record<string, unknown>[],
): Promise<string | null> {
  const roots = plan(schema, operation, fragments, variables, plans);
  if (!roots) return null;
  // One root (most documents): its text is the answer, without settling a list of promises.
  if (roots.length === 1) {
    try {
      return `{"data":{${roots[0]!.member}${await read(roots[0]!, context)}}}`;
    } catch (reason) {
      return answer(roots, [{ status: 'rejected', reason }], formatErrors, context);
    }
  }
  return answer(roots, await Promise.allSettled(roots.map((r) => read(r, context))), formatErrors, context);
}

function answer(
  roots: RootPlan[],
  answers: PromiseSettledResult<string>[],
  formatErrors: (error: GraphQLError) => Record<string, unknown>[],
  { marks }: GraphQLContext,
): string {
  const parts: string[] = [];
  const errors: Record<string, unknown>[] = [];
  let nulled = false;
  answers.forEach((settled, i) => {
    const root = roots[i]!;
    if (settled.status === 'fulfilled') {
      parts.push(`${root.member}${settled.value}`);
      return;
    }
    const original = settled.reason instanceof Error ? settled.reason : new Error(String(settled.reason));
    errors.push(
      ...formatErrors(
        new GraphQLError(original.message, { nodes: root.nodes, path: [root.key], originalError: original }),
      ),
    );
    parts.push(`${root.member}null`);
    if (root.nonNull) nulled = true;
  });
  const data = nulled ? 'null' : `{${parts.join(',')}}`;
  if (errors.length) marks.uncacheable?.();
  return errors.length ? `{"data":${data},"errors":${JSON.stringify(errors)}}` : `{"data":${data}}`;
}

async function read({ root, query, id, options }: RootPlan, context: GraphQLContext): Promise<string> {
  const { items } = context.app;
  if (root.kind === 'by_id')
    return (await items.readOne(root.collection, id!, query, context.accountability, context.marks, options)).json;
  return (await items.readMany(root.collection, query, context.accountability, context.marks, options)).json;
}

function plan(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: Record<string, FragmentDefinitionNode>,
  raw: Record<string, unknown>,
  plans: PassThroughPlans,
): RootPlan[] | null {
  if (operation.operation !== 'query') return null;
  const key = operation.variableDefinitions?.length ? JSON.stringify(raw) : '';
  let roots = plans.get(key);
  if (roots === undefined) {
    try {
      roots = planRoots(schema, operation, fragments, raw) ?? false;
    } catch (error) {
      // Arguments the engine refuses: execution reports them at their field (its resolvers plan the same way).
      if (!(error instanceof ServiceError || error instanceof GraphQLError)) throw error;
      roots = false;
    }
    plans.set(key, roots);
  }
  return roots || null;
}

function planRoots(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: Record<string, FragmentDefinitionNode>,
  raw: Record<string, unknown>,
): RootPlan[] | null {
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], raw);
  if (coerced.errors) return null;
  const variables = coerced.coerced;
  const queryType = schema.getQueryType();
  if (!queryType) return null;
  const defs = queryType.getFields();
  const roots: RootPlan[] = [];
  const selections = collectFields(queryType.name, [operation.selectionSet], {
    fragments,
    variables,
    options: { queryLimitMax: Infinity },
  });
  for (const [key, nodes] of selections) {
    const def = defs[nodes[0]!.name.value];
    const root = (def?.extensions?.strata as { root?: RootRead } | undefined)?.root;
    // A singleton without its row reads as {id: null} in the engine, where GraphQL answers every selected field.
    if (!def || !root || root.kind === 'singleton') return null;
    const ctx: WalkContext = { fragments, variables, options: root.limits, keyLists: false };
    const type = getNamedType(def.type) as GraphQLObjectType;
    if (!plain(type, nodes, ctx)) return null;
    const args = getArgumentValues(def, nodes[0]!, variables);
    // An item as of a content version is the resolver's to read (the version's delta over the row).
    if (typeof args.version === 'string' && args.version !== '') return null;
    // As the resolvers do: only lists take query arguments (`_by_id`'s id names the row).
    const query = levelQuery(
      type,
      nodes,
      root.kind === 'list' ? args : {},
      def.args.find((a) => a.name === 'filter')?.type,
      ctx,
      root.limits,
    );
    roots.push({
      key,
      member: `${JSON.stringify(key)}:`,
      root,
      options: { ...root.options, form: GRAPHQL_VALUES },
      query,
      id: root.kind === 'by_id' ? String(args.id) : null,
      nodes,
      nonNull: isNonNullType(def.type),
    });
  }
  return roots.length ? roots : null;
}

/** Only values under their own names and relations whose selections are plain too. */
function plain(type: GraphQLObjectType, nodes: readonly FieldNode[], ctx: WalkContext): boolean {
  const defs = type.getFields();
  for (const [key, fieldNodes] of collectFields(
    type.name,
    nodes.map((n) => n.selectionSet),
    ctx,
  )) {
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
