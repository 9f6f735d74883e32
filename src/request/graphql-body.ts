/**
 * A GraphQL request (Directus docs: GraphQL): a POST body, or the query string of a GET, where `variables` is JSON text
 * that gets the checks a JSON body gets before it is parsed.
 */
import { Type } from '@sinclair/typebox';
import { InvalidPayloadError } from '../errors/catalogue.js';
import { checkJsonText } from './json-text.js';
import { jsonBodyKey, prototypeKeyReason, refusedKeyPath } from './prototype-keys.js';
import { checkBody, compileSchema, Nullable } from './body-check.js';

export interface GraphQLRequest {
  query: string;
  variables: Record<string, unknown> | null;
  operationName: string | undefined;
}

const QUERY = 'Must provide query string';

/** A POST body, or the query string of a GET. */
export const GraphQLRequestBody = compileSchema(
  Type.Object(
    {
      query: Type.String({ pattern: '\\S', errorMessage: QUERY }),
      operationName: Type.Optional(Nullable(Type.String(), { errorMessage: '"operationName" must be a string' })),
      variables: Type.Optional(Type.Unknown()),
    },
    { errorMessage: { type: 'Payload has to be an object' } },
  ),
);

const Variables = compileSchema(Nullable(Type.Object({}), { errorMessage: 'Variables must be an object' }));

export function parseGraphQLRequest(source: unknown, maxJsonDepth: number): GraphQLRequest {
  const { query, variables, operationName } = checkBody(GraphQLRequestBody, source ?? {});
  // GET carries the variables as JSON text in the query string: the checks a JSON body gets.
  if (typeof variables === 'string') checkJsonText(variables, maxJsonDepth);
  return {
    query,
    variables: parseVariables(variables),
    operationName: typeof operationName === 'string' && operationName !== '' ? operationName : undefined,
  };
}

/** `variables` of a GET request (a JSON text) or a POST body (an object). */
function parseVariables(raw: unknown): Record<string, unknown> | null {
  if (raw === undefined || raw === null || raw === '') return null;
  let value = raw;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      throw new InvalidPayloadError('Variables are invalid JSON');
    }
    // What a JSON body may not hold (the parser refuses it in a POST body).
    const path = refusedKeyPath(value, 'variables', jsonBodyKey);
    if (path !== null) throw new InvalidPayloadError(prototypeKeyReason(path));
  }
  return checkBody(Variables, value) as Record<string, unknown> | null;
}
