/**
 * A root field's whole selection set → the Query IR (Directus docs: GraphQL): selections become `fields` paths, aliases of
 * relational and function fields become `alias` (at every level), nested arguments become `deep`, fragments and
 * @skip/@include are resolved with the request's variables. Pure; names are checked by the planner.
 */
import {
  getArgumentValues,
  getDirectiveValues,
  getNamedType,
  GraphQLIncludeDirective,
  GraphQLObjectType,
  GraphQLSkipDirective,
  GraphQLUnionType,
  Kind,
  type FieldNode,
  type FragmentDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { emptyRecord } from '../request/prototype-keys.js';
import type { DeepQuery } from '../request/query.js';
import type { FieldRead } from './collection-types.js';
import { functionKey, itemCollectionKey } from './field-resolvers.js';
import { queryArgs, type QueryArgOptions } from './query-args.js';

export interface WalkContext {
  fragments: Record<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
  options: QueryArgOptions;
  /** false: an o2m selection of only the related key stays a list of objects (the pass-through's form). */
  keyLists?: boolean;
}

export interface Level {
  fields: string[];
  alias: Record<string, string>;
  deep: Record<string, DeepQuery>;
  /**
   * The longest `fields` path Directus makes of these selections (MAX_RELATIONAL_DEPTH): each selected field is one
   * segment, a relation adds its selections' depth (none when it selects only `__typename`); `fields` is shaped for
   * reading instead (an o2m of keys only, `*` for an empty selection).
   */
  depth: number;
}

/** Response key → the field nodes selecting it on an object of type `typeName`. */
export function collectFields(
  typeName: string,
  sets: readonly (SelectionSetNode | undefined)[],
  ctx: WalkContext,
  out = new Map<string, FieldNode[]>(),
  seen = new Set<string>(),
): Map<string, FieldNode[]> {
  for (const set of sets) {
    for (const selection of set?.selections ?? []) {
      if (!included(selection, ctx)) continue;
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        const list = out.get(key) ?? [];
        list.push(selection);
        out.set(key, list);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (!selection.typeCondition || selection.typeCondition.name.value === typeName)
          collectFields(typeName, [selection.selectionSet], ctx, out, seen);
      } else {
        const name = selection.name.value;
        const fragment = ctx.fragments[name];
        if (!fragment || seen.has(name) || fragment.typeCondition.name.value !== typeName) continue;
        seen.add(name);
        collectFields(typeName, [fragment.selectionSet], ctx, out, seen);
      }
    }
  }
  return out;
}

function included(node: { directives?: readonly unknown[] }, ctx: WalkContext): boolean {
  if (!node.directives?.length) return true;
  const skip = getDirectiveValues(GraphQLSkipDirective, node as FieldNode, ctx.variables);
  if (skip?.if === true) return false;
  const include = getDirectiveValues(GraphQLIncludeDirective, node as FieldNode, ctx.variables);
  return include?.if !== false;
}

/** The level read for `type` from the selection sets of `nodes`. */
export function levelOf(type: GraphQLObjectType, nodes: readonly FieldNode[], ctx: WalkContext): Level {
  // Keyed by response keys, which the client names (an alias may be `__proto__`): on no prototype.
  const level: Level = { fields: [], alias: emptyRecord(), deep: emptyRecord(), depth: 0 };
  const defs = type.getFields();
  for (const [key, fieldNodes] of collectFields(
    type.name,
    nodes.map((n) => n.selectionSet),
    ctx,
  )) {
    const node = fieldNodes[0]!;
    const def = defs[node.name.value];
    const read = def?.extensions?.strata as FieldRead | undefined;
    if (!def || !read) continue;
    switch (read.kind) {
      case 'value':
        level.fields.push(read.field);
        level.depth = Math.max(level.depth, 1);
        break;
      case 'func': {
        const fnType = getNamedType(def.type) as GraphQLObjectType;
        for (const fnNodes of collectFields(
          fnType.name,
          fieldNodes.map((n) => n.selectionSet),
          ctx,
        ).values()) {
          const fn = fnNodes[0]!.name.value;
          if (fn === '__typename') continue;
          const alias = functionKey(key, fn);
          level.alias[alias] = `${fn}(${read.field})`;
          level.fields.push(alias);
          level.depth = Math.max(level.depth, 1);
        }
        break;
      }
      case 'm2o':
      case 'o2m': {
        if (key !== read.field) level.alias[key] = read.field;
        const child = levelOf(getNamedType(def.type) as GraphQLObjectType, fieldNodes, ctx);
        if (child.depth) level.depth = Math.max(level.depth, 1 + child.depth);
        // Only the related key of an o2m: REST's key list, a lighter statement (keyListResolver makes the objects).
        const keysOnly =
          ctx.keyLists !== false &&
          read.kind === 'o2m' &&
          child.fields.length === 1 &&
          child.fields[0] === read.relatedPrimary &&
          !Object.keys(child.deep).length;
        if (keysOnly) level.fields.push(key);
        else level.fields.push(...(child.fields.length ? child.fields : ['*']).map((f) => `${key}.${f}`));
        const args = queryArgs(
          getArgumentValues(def, node, ctx.variables),
          def.args.find((a) => a.name === 'filter')?.type,
          ctx.options,
        );
        const deep: DeepQuery = { ...args };
        if (Object.keys(child.alias).length) deep.alias = child.alias;
        if (Object.keys(child.deep).length) deep.deep = child.deep;
        if (Object.keys(deep).length) level.deep[key] = deep;
        break;
      }
      case 'any': {
        if (key !== read.field) level.alias[key] = read.field;
        const collectionAlias = itemCollectionKey(key);
        level.alias[collectionAlias] = read.collectionField;
        level.fields.push(collectionAlias);
        const union = getNamedType(def.type) as GraphQLUnionType;
        let scoped = false;
        for (const member of union.getTypes()) {
          const child = levelOf(member, fieldNodes, ctx);
          if (!child.fields.length) continue;
          const collection =
            (member.extensions?.strata as { collection?: string } | undefined)?.collection ?? member.name;
          scoped = true;
          // `item:<collection>.<field>`: the scoped item is one segment, as Directus writes its path.
          if (child.depth) level.depth = Math.max(level.depth, 1 + child.depth);
          level.fields.push(...child.fields.map((f) => `${key}:${collection}.${f}`));
          const deep: DeepQuery = {};
          if (Object.keys(child.alias).length) deep.alias = child.alias;
          if (Object.keys(child.deep).length) deep.deep = child.deep;
          if (Object.keys(deep).length) level.deep[`${key}:${collection}`] = deep;
        }
        if (!scoped) level.fields.push(key);
        break;
      }
    }
  }
  return level;
}
