/**
 * Runs a GraphQL request: the caller's schemas (cached), the compiled document (cached), then graphql-jit's
 * execution, whose root resolvers call the read engine and the writer. Parse and validation failures are 400
 * GRAPHQL_VALIDATION; failures of resolvers are answered 200 beside the data, with their catalogue codes.
 */
import { printSchema, type GraphQLError, type GraphQLSchema } from 'graphql';
import {
  GraphQLValidationError,
  MethodNotAllowedError,
  ServiceErrorList,
  type ServiceError,
} from '../errors/catalogue.js';
import { isUnexpected, toServiceError } from '../errors/to-service-error.js';
import type { Accountability } from '../permissions/accountability.js';
import type { GraphQLApi, GraphQLContext } from './context.js';
import { formatGraphQLError } from './document-cache.js';
import { passThrough } from './pass-through.js';
import { SchemaCache } from './schema-cache.js';

export type Scope = 'items' | 'system';

export interface GraphQLRequest {
  query: string;
  variables: Record<string, unknown> | null;
  operationName: string | undefined;
}

export interface Logger {
  error(object: unknown, message: string): void;
}

export class GraphQLService {
  private readonly schemas: SchemaCache;

  constructor(app: GraphQLApi, warm = true) {
    this.schemas = new SchemaCache(app, warm);
  }

  /** The JSON body of the answer (always status 200 once the document is valid). */
  async execute(
    scope: Scope,
    request: GraphQLRequest,
    method: 'GET' | 'POST',
    context: GraphQLContext,
    log: Logger,
  ): Promise<string> {
    const schemas = await this.schemas.forCaller(context.accountability);
    const { operation, compiled, node, fragments, plans } = schemas.documents.get(
      schemas[scope],
      request.query,
      request.operationName,
    );
    if (operation === 'subscription')
      throw new GraphQLValidationError([
        { message: 'Subscriptions are served over WebSocket (graphql-ws), not over HTTP.' },
      ]);
    if (method === 'GET' && operation !== 'query')
      throw new MethodNotAllowedError(['POST'], 'Can only perform a query operation from a GET request.');
    // Only queries' answers may be kept (http/cached-read.ts): a mutation's is its own.
    if (operation !== 'query') context.marks.uncacheable?.();
    if (operation === 'query') {
      const passed = await passThrough(
        schemas[scope],
        node,
        fragments,
        request.variables ?? {},
        plans,
        context,
        (error) => executionErrors(error, log),
      );
      if (passed !== null) return passed;
    }
    const result = await compiled.query(undefined, context, request.variables ?? {});
    // Variables that do not fit the operation: nothing ran, as for any other invalid document.
    if (!('data' in result) || result.data === undefined)
      throw new GraphQLValidationError((result.errors ?? []).map((e) => formatGraphQLError(e as GraphQLError)));
    const body: Record<string, unknown> = { data: result.data };
    if (result.errors?.length) context.marks.uncacheable?.();
    if (result.errors?.length)
      body.errors = result.errors.flatMap((error) => executionErrors(error as GraphQLError, log));
    return JSON.stringify(body);
  }

  /** The caller's schema for `scope` (cached: the GraphQL socket executes its operations on it). */
  async schemaFor(scope: Scope, accountability: Accountability): Promise<GraphQLSchema> {
    return (await this.schemas.forCaller(accountability))[scope];
  }

  /** SDL of the caller's schema for `scope`. */
  async sdl(scope: Scope, accountability: Accountability): Promise<string> {
    const schemas = await this.schemas.forCaller(accountability);
    return printSchema(schemas[scope]);
  }
}

/** A resolver's failure as GraphQL errors with their catalogue codes (also for the GraphQL socket's messages). */
export function executionErrors(error: GraphQLError, log: Logger): Record<string, unknown>[] {
  const original = error.originalError;
  // An error of graphql-jit itself (it carries locations) keeps its message.
  if (!original || (original as { locations?: unknown }).locations)
    return [{ ...formatGraphQLError(error), extensions: { code: 'INTERNAL_SERVER_ERROR' } }];
  if (isUnexpected(original)) log.error({ err: original }, 'GraphQL resolver failed');
  const service = toServiceError(original);
  const services: ServiceError[] = service instanceof ServiceErrorList ? service.errors : [service];
  return services.map((service) => ({
    ...formatGraphQLError(error),
    message: service.message,
    extensions: { code: service.code, ...service.extensions },
  }));
}
