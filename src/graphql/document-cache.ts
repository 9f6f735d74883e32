/**
 * GraphQL documents of one schema: parsed (with the token limit), validated (introspection refused when it is
 * switched off) and compiled by graphql-jit once per (operation name, query text), in a bounded LRU; the
 * pass-through's plans of an operation live in its entry.
 */
import {
  execute,
  getNamedType,
  GraphQLError,
  isInputObjectType,
  Kind,
  NoSchemaIntrospectionCustomRule,
  parse,
  specifiedRules,
  typeFromAST,
  validate,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLInputObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type OperationTypeNode,
  type ASTNode,
  type ValidationRule,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { Cache } from '../cache/cache.js';
import type { GraphQLConfig } from '../config/graphql-config.js';
import { GraphQLValidationError } from '../errors/catalogue.js';
import { emptyRecord } from '../request/prototype-keys.js';
import { documentLimitError } from './document-limits.js';
import { passThroughPlans, type PassThroughPlans } from './pass-through.js';

const MAX_DOCUMENTS = 500;

export interface CompiledDocument {
  operation: OperationTypeNode;
  compiled: Pick<CompiledQuery, 'query'>;
  /** The operation to run and the document's fragments (for the pass-through of plain queries). */
  node: OperationDefinitionNode;
  fragments: Record<string, FragmentDefinitionNode>;
  /** The pass-through's root reads per variable values, kept with the document they belong to. */
  plans: PassThroughPlans;
}

export class DocumentCache {
  private readonly documents = new Cache<string, CompiledDocument | GraphQLValidationError>('graphql-documents', {
    max: MAX_DOCUMENTS,
  });

  constructor(private readonly config: GraphQLConfig) {}

  /** The compiled operation, or GRAPHQL_VALIDATION (thrown) for a document that does not parse or validate. */
  get(schema: GraphQLSchema, query: string, operationName: string | undefined): CompiledDocument {
    const key = `${operationName ?? ''}\u0000${query}`;
    const entry = this.documents.compute(key, () => this.compile(schema, query, operationName));
    if (entry instanceof GraphQLValidationError) throw entry;
    return entry;
  }

  private compile(
    schema: GraphQLSchema,
    query: string,
    operationName: string | undefined,
  ): CompiledDocument | GraphQLValidationError {
    let document: DocumentNode;
    try {
      document = parse(query, { maxTokens: this.config.queryTokenLimit });
    } catch (error) {
      return new GraphQLValidationError([formatGraphQLError(error as GraphQLError)]);
    }
    const tooMuch = documentLimitError(document, query, this.config);
    if (tooMuch) return new GraphQLValidationError([formatGraphQLError(tooMuch)]);
    const rules = [
      ...specifiedRules,
      NoPrototypeNamesRule,
      ...(this.config.introspection ? [] : [NoSchemaIntrospectionCustomRule]),
    ];
    const errors = validate(schema, document, rules);
    if (errors.length) return new GraphQLValidationError(errors.map(formatGraphQLError));
    const operations = document.definitions.filter(
      (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
    );
    const operation =
      operationName === undefined
        ? operations.length === 1
          ? operations[0]
          : undefined
        : operations.find((o) => o.name?.value === operationName);
    if (!operation) {
      const message =
        operationName === undefined
          ? 'Must provide operation name if query contains multiple operations.'
          : `Unknown operation named "${operationName}".`;
      return new GraphQLValidationError([{ message }]);
    }
    const fragments: Record<string, FragmentDefinitionNode> = emptyRecord();
    for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
    if (hasRecursiveVariable(schema, operation)) {
      // graphql-jit writes the coercion code of a variable's input type inline, field by field, and never stops on
      // a type that contains itself (every `<c>_filter`, through `_and`/`_or`): it ran out of memory. Such
      // operations run on graphql-js, which coerces variables by walking the values instead; same schema, same
      // resolvers, same answers.
      const compiled: Pick<CompiledQuery, 'query'> = {
        query: (root, context, variables) =>
          execute({
            schema,
            document,
            operationName: operation.name?.value,
            rootValue: root,
            contextValue: context,
            variableValues: variables,
          }),
      };
      return { operation: operation.operation, compiled, node: operation, fragments, plans: passThroughPlans() };
    }
    const compiled = compileQuery(schema, document, operationName, { disablingCapturingStackErrors: true });
    if (!isCompiledQuery(compiled)) return new GraphQLValidationError((compiled.errors ?? []).map(formatGraphQLError));
    return { operation: operation.operation, compiled, node: operation, fragments, plans: passThroughPlans() };
  }
}

/**
 * An alias or fragment named `__proto__` would be a key of the result object (or of the walk's maps) that replaces
 * its prototype instead of holding a value: graphql-jit's result lost the field. Refused as a validation error.
 */
const NoPrototypeNamesRule: ValidationRule = (context) => {
  const refuse = (what: string, node: ASTNode) =>
    context.reportError(new GraphQLError(`The ${what} name "__proto__" is reserved.`, { nodes: node }));
  return {
    Field: (node) => (node.alias?.value === '__proto__' ? refuse('alias', node) : undefined),
    FragmentDefinition: (node) => (node.name.value === '__proto__' ? refuse('fragment', node) : undefined),
  };
};

/** Whether a variable's input object type reaches a cycle of input types (one visit per type: linear in the schema). */
function hasRecursiveVariable(schema: GraphQLSchema, operation: OperationDefinitionNode): boolean {
  const done = new Set<string>();
  const open = new Set<string>();
  const cyclic = (type: GraphQLInputObjectType): boolean => {
    if (open.has(type.name)) return true;
    if (done.has(type.name)) return false;
    open.add(type.name);
    const found = Object.values(type.getFields()).some((field) => {
      const named = getNamedType(field.type);
      return isInputObjectType(named) && cyclic(named);
    });
    open.delete(type.name);
    done.add(type.name);
    return found;
  };
  return (operation.variableDefinitions ?? []).some((definition) => {
    const type = typeFromAST(schema, definition.type);
    const named = type ? getNamedType(type) : undefined;
    return named !== undefined && isInputObjectType(named) && cyclic(named);
  });
}

export function formatGraphQLError(error: GraphQLError): Record<string, unknown> {
  const out: Record<string, unknown> = { message: error.message };
  if (error.locations) out.locations = error.locations;
  if (error.path) out.path = error.path;
  return out;
}
