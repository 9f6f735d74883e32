/**
 * What the OpenAPI document says about each route other than the collections': its summary, tag, body, answer and
 * who may see it (system-paths.ts lists the routes from the app's route table and looks them up here).
 */
import { dataResponse, json } from './item-paths.js';
import type { JsonSchema } from './json-schema.js';

/** Who sees a route: anyone, signed-in users, readers of the schema metadata, admins. */
export type Audience = 'anyone' | 'user' | 'schema' | 'admin';

export interface Described {
  summary: string;
  tag: string;
  audience: Audience;
  body?: JsonSchema;
  /** 200 answer; `null` = 204 only. */
  answer?: JsonSchema | null;
  security?: false;
}

const anyData = dataResponse('The answer', {});
const tokens = {
  type: 'object',
  properties: {
    access_token: { type: 'string' },
    expires: { type: 'integer', description: 'Milliseconds until the access token expires.' },
    refresh_token: { type: 'string' },
  },
};
const login = {
  type: 'object',
  required: ['email', 'password'],
  properties: {
    email: { type: 'string', format: 'email' },
    password: { type: 'string', format: 'password' },
    mode: { type: 'string', enum: ['json', 'cookie', 'session'] },
    otp: { type: 'string', description: 'The two-factor code, when enabled.' },
  },
};
const refresh = {
  type: 'object',
  properties: { refresh_token: { type: 'string' }, mode: { type: 'string', enum: ['json', 'cookie', 'session'] } },
};
const graphqlBody = {
  type: 'object',
  required: ['query'],
  properties: { query: { type: 'string' }, variables: { type: 'object' }, operationName: { type: 'string' } },
};
const graphqlAnswer = {
  description: 'The GraphQL answer (errors of resolvers beside the data)',
  content: json({ type: 'object', properties: { data: {}, errors: { type: 'array', items: { type: 'object' } } } }),
};
const text = (description: string, type = 'text/plain') => ({
  description,
  content: { [type]: { schema: { type: 'string' } } },
});
const array = { type: 'array', items: { type: 'object' } };

/** Keyed by `METHOD path` in OpenAPI form. */
export const DESCRIBED: Record<string, Described> = {
  'POST /auth/login': {
    summary: 'Sign in: tokens (json mode) or cookies',
    tag: 'Authentication',
    audience: 'anyone',
    body: login,
    answer: dataResponse('The tokens (json mode)', tokens),
    security: false,
  },
  'POST /auth/refresh': {
    summary: 'New tokens for a refresh token (body or cookie)',
    tag: 'Authentication',
    audience: 'anyone',
    body: refresh,
    answer: dataResponse('The tokens', tokens),
    security: false,
  },
  'POST /auth/logout': {
    summary: 'End the session of a refresh token (body or cookie)',
    tag: 'Authentication',
    audience: 'anyone',
    body: refresh,
    answer: null,
    security: false,
  },
  'GET /server/ping': {
    summary: 'Answers pong',
    tag: 'Server',
    audience: 'anyone',
    answer: text('pong'),
    security: false,
  },
  'GET /server/health': {
    summary: 'Health of the service and its database',
    tag: 'Server',
    audience: 'anyone',
    answer: {
      description: 'ok or warn (503 when error)',
      content: {
        'application/health+json': {
          schema: { type: 'object', properties: { status: { type: 'string', enum: ['ok', 'warn', 'error'] } } },
        },
      },
    },
  },
  'GET /server/info': {
    summary: 'Project information (query limits for signed-in users)',
    tag: 'Server',
    audience: 'anyone',
    answer: anyData,
  },
  'GET /server/specs/oas': {
    summary: 'This OpenAPI document, for the caller',
    tag: 'Server',
    audience: 'anyone',
    answer: { description: 'An OpenAPI document', content: json({ type: 'object' }) },
  },
  'GET /server/specs/graphql/{scope}': {
    summary: 'The caller’s GraphQL schema (SDL)',
    tag: 'Server',
    audience: 'anyone',
    answer: text('GraphQL SDL'),
  },
  'GET /server/specs/typescript': {
    summary: 'TypeScript types of the schema for @directus/sdk',
    tag: 'Server',
    audience: 'admin',
    answer: text('TypeScript source'),
  },
  'GET /graphql': {
    summary: 'GraphQL query over the user collections (`query`, `variables`, `operationName` in the query string)',
    tag: 'GraphQL',
    audience: 'anyone',
    answer: graphqlAnswer,
  },
  'POST /graphql': {
    summary: 'GraphQL query or mutation over the user collections',
    tag: 'GraphQL',
    audience: 'anyone',
    body: graphqlBody,
    answer: graphqlAnswer,
  },
  'GET /graphql/system': {
    summary: 'GraphQL query over the system collections and server fields',
    tag: 'GraphQL',
    audience: 'anyone',
    answer: graphqlAnswer,
  },
  'POST /graphql/system': {
    summary: 'GraphQL query or mutation over the system collections',
    tag: 'GraphQL',
    audience: 'anyone',
    body: graphqlBody,
    answer: graphqlAnswer,
  },
  'GET /users/me': { summary: 'The caller’s user', tag: 'Users', audience: 'user', answer: anyData },
  'PATCH /users/me': {
    summary: 'Update the caller’s user',
    tag: 'Users',
    audience: 'user',
    body: { type: 'object' },
    answer: anyData,
  },
  'PATCH /users/me/track/page': {
    summary: 'Remember the caller’s last page',
    tag: 'Users',
    audience: 'user',
    body: { type: 'object', properties: { last_page: { type: 'string' } } },
    answer: null,
  },
  'POST /users/me/tfa/generate': {
    summary: 'Start two-factor setup: a secret and its otpauth URL',
    tag: 'Users',
    audience: 'user',
    body: { type: 'object', required: ['password'], properties: { password: { type: 'string', format: 'password' } } },
    answer: dataResponse('The secret', {
      type: 'object',
      properties: { secret: { type: 'string' }, otpauth_url: { type: 'string' } },
    }),
  },
  'POST /users/me/tfa/enable': {
    summary: 'Turn two-factor sign-in on',
    tag: 'Users',
    audience: 'user',
    body: {
      type: 'object',
      required: ['secret', 'otp'],
      properties: { secret: { type: 'string' }, otp: { type: 'string' } },
    },
    answer: null,
  },
  'POST /users/me/tfa/disable': {
    summary: 'Turn two-factor sign-in off',
    tag: 'Users',
    audience: 'user',
    body: { type: 'object', required: ['otp'], properties: { otp: { type: 'string' } } },
    answer: null,
  },
  'GET /roles/me': {
    summary: 'The caller’s roles',
    tag: 'Roles',
    audience: 'user',
    answer: dataResponse('The roles', array),
  },
  'GET /policies/me/globals': {
    summary: 'The caller’s app, admin and two-factor flags',
    tag: 'Policies',
    audience: 'anyone',
    answer: anyData,
  },
  'GET /permissions/me': {
    summary: 'What the caller may do, per collection and action',
    tag: 'Permissions',
    audience: 'anyone',
    answer: anyData,
  },
  'GET /schema/snapshot': {
    summary: 'The schema as a snapshot (collections, fields, relations); `?export=yaml` for YAML',
    tag: 'Schema',
    audience: 'admin',
    answer: anyData,
  },
  'POST /schema/diff': {
    summary: 'The changes that would turn this schema into the snapshot sent (`?force` across vendors and versions)',
    tag: 'Schema',
    audience: 'admin',
    body: { type: 'object' },
    answer: anyData,
  },
  'POST /schema/apply': {
    summary: 'Apply a diff from /schema/diff (`{hash, diff}`)',
    tag: 'Schema',
    audience: 'admin',
    body: {
      type: 'object',
      required: ['hash', 'diff'],
      properties: { hash: { type: 'string' }, diff: { type: 'object' } },
    },
    answer: null,
  },
  'POST /utils/cache/clear': {
    summary: 'Drop every cache (schema, permissions, users, settings) on every instance',
    tag: 'Utilities',
    audience: 'admin',
    answer: { description: 'Cleared (no body)' },
  },
  'GET /collections': {
    summary: 'Collections the caller may see',
    tag: 'Collections',
    audience: 'schema',
    answer: dataResponse('The collections', array),
  },
  'GET /collections/{collection}': {
    summary: 'One collection',
    tag: 'Collections',
    audience: 'schema',
    answer: anyData,
  },
  'POST /collections': {
    summary: 'Create a collection (with its fields)',
    tag: 'Collections',
    audience: 'admin',
    body: { type: 'object' },
    answer: anyData,
  },
  'PATCH /collections': {
    summary: 'Update the meta of several collections',
    tag: 'Collections',
    audience: 'admin',
    body: array,
    answer: anyData,
  },
  'PATCH /collections/{collection}': {
    summary: 'Update a collection’s meta',
    tag: 'Collections',
    audience: 'admin',
    body: { type: 'object' },
    answer: anyData,
  },
  'DELETE /collections/{collection}': {
    summary: 'Delete a collection and its data',
    tag: 'Collections',
    audience: 'admin',
    answer: null,
  },
  'GET /fields': {
    summary: 'Fields the caller may see',
    tag: 'Fields',
    audience: 'schema',
    answer: dataResponse('The fields', array),
  },
  'GET /fields/{collection}': {
    summary: 'Fields of a collection',
    tag: 'Fields',
    audience: 'schema',
    answer: dataResponse('The fields', array),
  },
  'GET /fields/{collection}/{field}': { summary: 'One field', tag: 'Fields', audience: 'schema', answer: anyData },
  'POST /fields/{collection}': {
    summary: 'Create a field',
    tag: 'Fields',
    audience: 'admin',
    body: { type: 'object' },
    answer: anyData,
  },
  'PATCH /fields/{collection}': {
    summary: 'Update several fields',
    tag: 'Fields',
    audience: 'admin',
    body: array,
    answer: anyData,
  },
  'PATCH /fields/{collection}/{field}': {
    summary: 'Update a field',
    tag: 'Fields',
    audience: 'admin',
    body: { type: 'object' },
    answer: anyData,
  },
  'DELETE /fields/{collection}/{field}': {
    summary: 'Delete a field and its data',
    tag: 'Fields',
    audience: 'admin',
    answer: null,
  },
  'GET /relations': {
    summary: 'Relations the caller may see',
    tag: 'Relations',
    audience: 'schema',
    answer: dataResponse('The relations', array),
  },
  'GET /relations/{collection}': {
    summary: 'Relations of a collection',
    tag: 'Relations',
    audience: 'schema',
    answer: dataResponse('The relations', array),
  },
  'GET /relations/{collection}/{field}': {
    summary: 'One relation',
    tag: 'Relations',
    audience: 'schema',
    answer: anyData,
  },
  'POST /relations': {
    summary: 'Create a relation',
    tag: 'Relations',
    audience: 'admin',
    body: { type: 'object' },
    answer: anyData,
  },
  'PATCH /relations/{collection}/{field}': {
    summary: 'Update a relation',
    tag: 'Relations',
    audience: 'admin',
    body: { type: 'object' },
    answer: anyData,
  },
  'DELETE /relations/{collection}/{field}': {
    summary: 'Delete a relation',
    tag: 'Relations',
    audience: 'admin',
    answer: null,
  },
};
