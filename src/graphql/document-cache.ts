/**
 * GraphQL documents of one schema: parsed (with the token limit), validated (introspection refused when it is
 * switched off) and compiled by graphql-jit once per (operation name, query text), in a bounded LRU.
 */
import { GraphQLError, Kind, NoSchemaIntrospectionCustomRule, parse, specifiedRules, validate, type DocumentNode, type FragmentDefinitionNode, type GraphQLSchema, type OperationDefinitionNode, type OperationTypeNode } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { GraphQLConfig } from '../config/graphql-config.js';
import { GraphQLValidationError } from '../errors/catalogue.js';
import { documentLimitError } from './document-limits.js';
import { Lru } from './lru.js';

const MAX_DOCUMENTS = 500;

export interface CompiledDocument {
  operation: OperationTypeNode;
  compiled: CompiledQuery;
  /** The operation to run and the document's fragments (for the pass-through of plain queries). */
  node: OperationDefinitionNode;
  fragments: Record<string, FragmentDefinitionNode>;
}

export class DocumentCache {
  private readonly documents = new Lru<string, CompiledDocument | GraphQLValidationError>(MAX_DOCUMENTS);

  constructor(private readonly config: GraphQLConfig) {}

  /** The compiled operation, or GRAPHQL_VALIDATION (thrown) for a document that does not parse or validate. */
  get(schema: GraphQLSchema, query: string, operationName: string | undefined): CompiledDocument {
    const key = `${operationName ?? ''}\u0000${query}`;
    let entry = this.documents.get(key);
    if (!entry) {
      entry = this.compile(schema, query, operationName);
      this.documents.set(key, entry);
    }
    if (entry instanceof GraphQLValidationError) throw entry;
    return entry;
  }

  private compile(schema: GraphQLSchema, query: string, operationName: string | undefined): CompiledDocument | GraphQLValidationError {
    let document: DocumentNode;
    try {
      document = parse(query, { maxTokens: this.config.queryTokenLimit });
    } catch (error) {
      return new GraphQLValidationError([formatGraphQLError(error as GraphQLError)]);
    }
    const tooMuch = documentLimitError(document, query, this.config);
    if (tooMuch) return new GraphQLValidationError([formatGraphQLError(tooMuch)]);
    const rules = this.config.introspection ? specifiedRules : [...specifiedRules, NoSchemaIntrospectionCustomRule];
    const errors = validate(schema, document, rules);
    if (errors.length) return new GraphQLValidationError(errors.map(formatGraphQLError));
    const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
    const operation = operationName === undefined ? (operations.length === 1 ? operations[0] : undefined) : operations.find((o) => o.name?.value === operationName);
    if (!operation) {
      const message = operationName === undefined ? 'Must provide operation name if query contains multiple operations.' : `Unknown operation named "${operationName}".`;
      return new GraphQLValidationError([{ message }]);
    }
    const compiled = compileQuery(schema, document, operationName, { disablingCapturingStackErrors: true });
    if (!isCompiledQuery(compiled)) return new GraphQLValidationError((compiled.errors ?? []).map(formatGraphQLError));
    const fragments: Record<string, FragmentDefinitionNode> = {};
    for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
    return { operation: operation.operation, compiled, node: operation, fragments };
  }
}

export function formatGraphQLError(error: GraphQLError): Record<string, unknown> {
  const out: Record<string, unknown> = { message: error.message };
  if (error.locations) out.locations = error.locations;
  if (error.path) out.path = error.path;
  return out;
}
