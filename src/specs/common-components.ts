/**
 * What every document shares: the query-language parameters (as Directus's specification names them), the error
 * body and the error responses, and the ways to authenticate (bearer token, `access_token` query parameter, the
 * session cookie).
 */
import { EXPORT_FORMATS } from '../io/export-formats.js';
import type { JsonSchema } from './json-schema.js';

const param = (name: string, description: string, schema: JsonSchema, extra: JsonSchema = {}): JsonSchema => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
  ...extra,
});

/** Query parameters, by component name. Filter and deep are JSON text or bracket syntax (`filter[title][_eq]=x`). */
export const PARAMETERS: Record<string, JsonSchema> = {
  Fields: param(
    'fields',
    'Fields to return, comma separated; dot paths expand relations (`author.name`, `*.*`).',
    { type: 'array', items: { type: 'string' } },
    { style: 'form', explode: false },
  ),
  Filter: param(
    'filter',
    'Rows to return: a filter object as JSON (`{"status":{"_eq":"published"}}`) or in bracket syntax (`filter[status][_eq]=published`).',
    { type: 'string' },
  ),
  Search: param('search', 'Rows holding this text in any searchable field.', { type: 'string' }),
  Sort: param(
    'sort',
    'Fields to sort on, comma separated; `-` sorts descending.',
    { type: 'array', items: { type: 'string' } },
    { style: 'form', explode: false },
  ),
  Limit: param('limit', 'Most rows to return (`-1`: all, up to the server maximum).', { type: 'integer', minimum: -1 }),
  Offset: param('offset', 'Rows to skip.', { type: 'integer', minimum: 0 }),
  Page: param('page', 'Page of `limit` rows to return (from 1).', { type: 'integer', minimum: 1 }),
  Meta: param('meta', 'Counts to add under `meta`: `total_count`, `filter_count` or `*`.', { type: 'string' }),
  Deep: param('deep', 'Query per relation, as JSON (`{"articles":{"_limit":5,"_sort":"-id"}}`) or in bracket syntax.', {
    type: 'string',
  }),
  Alias: param('alias', 'More keys for fields (`alias[new]=field`), as JSON or in bracket syntax.', { type: 'string' }),
  Aggregate: param(
    'aggregate',
    'Aggregates (`aggregate[count]=*`, `aggregate[avg]=rating`), as JSON or in bracket syntax.',
    { type: 'string' },
  ),
  GroupBy: param(
    'groupBy',
    'Fields to group aggregates by, comma separated.',
    { type: 'array', items: { type: 'string' } },
    { style: 'form', explode: false },
  ),
  Export: param(
    'export',
    'Answer the rows as a download in this format instead (streamed; `json` is the bare array of items).',
    { type: 'string', enum: [...EXPORT_FORMATS] },
  ),
};

export const LIST_PARAMETERS = [
  'Fields',
  'Filter',
  'Search',
  'Sort',
  'Limit',
  'Offset',
  'Page',
  'Meta',
  'Deep',
  'Alias',
  'Aggregate',
  'GroupBy',
  'Export',
];

/** The other media types of a list read with `export` (JSON keeps the `application/json` entry). */
export const EXPORT_MEDIA_TYPES = ['text/csv', 'application/x-ndjson', 'text/xml', 'text/yaml'];
export const ONE_PARAMETERS = ['Fields', 'Deep', 'Alias'];

export const paramRef = (name: string): JsonSchema => ({ $ref: `#/components/parameters/${name}` });

export const ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['errors'],
  properties: {
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['message', 'extensions'],
        properties: {
          message: { type: 'string' },
          extensions: {
            type: 'object',
            required: ['code'],
            properties: { code: { type: 'string', example: 'FORBIDDEN' } },
            additionalProperties: true,
          },
        },
      },
    },
  },
};

const errorResponse = (description: string): JsonSchema => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

/** Error responses by component name (the error codes each may carry are in docs/api.md). */
export const RESPONSES: Record<string, JsonSchema> = {
  BadRequestError: errorResponse(
    'Invalid query or payload (`INVALID_QUERY`, `INVALID_PAYLOAD`, `FAILED_VALIDATION`, `VALUE_TOO_LONG`, ...).',
  ),
  UnauthorizedError: errorResponse(
    'Missing or expired credentials (`INVALID_CREDENTIALS`, `TOKEN_EXPIRED`, `INVALID_IP`).',
  ),
  ForbiddenError: errorResponse('Not allowed, or no such item or collection (`FORBIDDEN`, `INVALID_TOKEN`).'),
  NotFoundError: errorResponse('No such route (`ROUTE_NOT_FOUND`).'),
  TooManyRequestsError: errorResponse('Rate limit reached (`REQUESTS_EXCEEDED`).'),
  ServiceUnavailableError: errorResponse('The database or the server is unavailable (`SERVICE_UNAVAILABLE`).'),
};

/** The error responses every operation may give. */
export function errorResponses(write: boolean): Record<string, JsonSchema> {
  const refs: Record<string, JsonSchema> = {
    '400': { $ref: '#/components/responses/BadRequestError' },
    '401': { $ref: '#/components/responses/UnauthorizedError' },
    '403': { $ref: '#/components/responses/ForbiddenError' },
    '429': { $ref: '#/components/responses/TooManyRequestsError' },
    '503': { $ref: '#/components/responses/ServiceUnavailableError' },
  };
  if (!write) return refs;
  return {
    ...refs,
    '413': errorResponse('Payload too large (`INVALID_PAYLOAD`).'),
    '415': errorResponse('Body not JSON (`UNSUPPORTED_MEDIA_TYPE`).'),
  };
}

export function securitySchemes(sessionCookie: string): Record<string, JsonSchema> {
  return {
    Auth: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: 'An access token from /auth/login, or a static token.',
    },
    KeyAuth: { type: 'apiKey', in: 'query', name: 'access_token', description: 'The same token as a query parameter.' },
    CookieAuth: {
      type: 'apiKey',
      in: 'cookie',
      name: sessionCookie,
      description: 'The session cookie of a `session` mode login.',
    },
  };
}

export const SECURITY = [{ Auth: [] }, { KeyAuth: [] }, { CookieAuth: [] }];
