/**
 * Limits on the work a GraphQL document asks for, checked on the parsed document before validation and execution
 * (validation itself is exponential in fragment nesting: `...F1 ...F1` in F0, `...F2 ...F2` in F1, ...). Fragment
 * spreads count as the selection they expand to, with each fragment measured once, so a document of a few hundred
 * tokens that expands to 2^40 fields is measured in linear time and refused.
 */
import { GraphQLError, Kind, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import type { GraphQLConfig } from '../config/graphql-config.js';

interface Measure {
  /** Fields once every fragment is expanded. */
  fields: number;
  aliases: number;
  /** Deepest field nesting (a root field is depth 1). */
  depth: number;
}

/** A `\u0000` escape in a string of the document (an even number of backslashes before it). */
const NUL_ESCAPE = /(?<!\\)(?:\\\\)*\\u0000/;

/** The message of the first limit the document exceeds, or null. */
export function documentLimitError(document: DocumentNode, text: string, config: GraphQLConfig): GraphQLError | null {
  if (text.includes('\\u0000') && NUL_ESCAPE.test(text))
    return new GraphQLError("Strings can't contain NUL characters.");
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const measured = new Map<string, Measure>();
  const visiting = new Set<string>();

  const measureSet = (set: SelectionSetNode, depth: number): Measure => {
    // Deeper than allowed: stop here, so that the walk itself stays shallow.
    if (depth > config.queryMaxDepth) return { fields: 0, aliases: 0, depth };
    const total: Measure = { fields: 0, aliases: 0, depth: depth - 1 };
    for (const selection of set.selections) {
      let part: Measure;
      if (selection.kind === Kind.FIELD) {
        const inner = selection.selectionSet
          ? measureSet(selection.selectionSet, depth + 1)
          : { fields: 0, aliases: 0, depth };
        part = {
          fields: 1 + inner.fields,
          aliases: (selection.alias ? 1 : 0) + inner.aliases,
          depth: Math.max(depth, inner.depth),
        };
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        part = measureSet(selection.selectionSet, depth);
      } else {
        part = spread(selection.name.value, depth);
      }
      total.fields += part.fields;
      total.aliases += part.aliases;
      total.depth = Math.max(total.depth, part.depth);
    }
    return total;
  };

  // A fragment's measure relative to where it is spread: its fields and aliases do not depend on the depth, its
  // nesting adds to it. It is measured once, from depth 1.
  const spread = (name: string, depth: number): Measure => {
    const fragment = fragments.get(name);
    if (!fragment || visiting.has(name)) return { fields: 0, aliases: 0, depth: depth - 1 }; // validation reports these
    let own = measured.get(name);
    if (!own) {
      visiting.add(name);
      own = measureSet(fragment.selectionSet, 1);
      visiting.delete(name);
      measured.set(name, own);
    }
    return { fields: own.fields, aliases: own.aliases, depth: own.depth + depth - 1 };
  };

  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    const m = measureSet(definition.selectionSet, 1);
    if (m.depth > config.queryMaxDepth)
      return new GraphQLError(
        `The query is nested more than ${config.queryMaxDepth} levels deep (GRAPHQL_QUERY_MAX_DEPTH).`,
      );
    if (m.fields > config.queryMaxFields)
      return new GraphQLError(
        `The query selects more than ${config.queryMaxFields} fields once its fragments are expanded (GRAPHQL_QUERY_MAX_FIELDS).`,
      );
    if (m.aliases > config.queryMaxAliases)
      return new GraphQLError(
        `The query has more than ${config.queryMaxAliases} aliases once its fragments are expanded (GRAPHQL_QUERY_MAX_ALIASES).`,
      );
  }
  return null;
}
