/**
 * `GET /server/specs/oas`: the OpenAPI document of what the caller may do (raw JSON, not wrapped in `data`, as
 * Directus answers it); `?openapi=3.1` for OpenAPI 3.1 instead of 3.0. `GET /server/specs/typescript` (admins):
 * TypeScript types of the whole schema for `createDirectus<Schema>()`, as `strata types` writes them.
 */
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import { InvalidQueryError } from '../../errors/catalogue.js';
import { checkBody, compileSchema, OneOf } from '../../request/body-check.js';
import type { SpecsService } from '../../specs/specs-service.js';
import { typescriptTypes } from '../../specs/typescript-types.js';
import type { SchemaOverview } from '../../schema/types.js';
import { requireAdmin } from '../../schema-admin/schema-access.js';
import { declareRoute, type RouteDeclaration } from '../route-declaration.js';

const OasQuery = compileSchema(
  Type.Object({
    openapi: Type.Optional(
      OneOf(['3.0', '3.1'] as const, {
        errorMessage: '"openapi" must be 3.0 or 3.1',
        description: 'The OpenAPI version (3.0 by default).',
      }),
    ),
  }),
);

const tags = ['Server'];
export const SPECS_ROUTES = {
  oas: {
    method: 'GET',
    url: '/server/specs/oas',
    summary: 'This OpenAPI document, for the caller',
    tags,
    audience: 'anyone',
    querystring: OasQuery,
    response: { description: 'An OpenAPI document', media: 'application/json', schema: Type.Object({}) },
  },
  typescript: {
    method: 'GET',
    url: '/server/specs/typescript',
    summary: 'TypeScript types of the schema for @directus/sdk',
    tags,
    audience: 'admin',
    response: { description: 'TypeScript source', media: 'text/plain', schema: Type.String() },
  },
} satisfies Record<string, RouteDeclaration>;

export function specsRoutes(specs: SpecsService, schema: () => SchemaOverview): FastifyPluginAsync {
  return async (app) => {
    declareRoute(app, SPECS_ROUTES.oas, async (request, reply) => {
      const { openapi } = checkBody(OasQuery, request.query, (message) => new InvalidQueryError(message));
      const text = await specs.oas(request.accountability, openapi ?? '3.0');
      return reply.type('application/json; charset=utf-8').send(text);
    });

    declareRoute(app, SPECS_ROUTES.typescript, async (request, reply) => {
      requireAdmin(request.accountability);
      return reply
        .header('content-disposition', 'attachment; filename="schema.ts"')
        .type('text/plain; charset=utf-8')
        .send(typescriptTypes(schema()));
    });
  };
}
