/**
 * `GET /server/specs/oas`: the OpenAPI document of what the caller may do (raw JSON, not wrapped in `data`, as
 * Directus answers it); `?openapi=3.1` for OpenAPI 3.1 instead of 3.0. `GET /server/specs/typescript` (admins):
 * TypeScript types of the whole schema for `createDirectus<Schema>()`, as `strata types` writes them.
 */
import type { FastifyPluginAsync } from 'fastify';
import { InvalidQueryError } from '../../errors/catalogue.js';
import type { OasVersion } from '../../specs/json-schema.js';
import type { SpecsService } from '../../specs/specs-service.js';
import { typescriptTypes } from '../../specs/typescript-types.js';
import type { SchemaOverview } from '../../schema/types.js';
import { requireAdmin } from '../../services/schema-access.js';

export function specsRoutes(specs: SpecsService, schema: () => SchemaOverview): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Querystring: { openapi?: unknown } }>('/server/specs/oas', async (request, reply) => {
      const requested = request.query.openapi;
      if (requested !== undefined && requested !== '3.0' && requested !== '3.1') throw new InvalidQueryError('"openapi" must be 3.0 or 3.1');
      const text = await specs.oas(request.accountability, (requested ?? '3.0') as OasVersion);
      return reply.type('application/json; charset=utf-8').send(text);
    });

    app.get('/server/specs/typescript', async (request, reply) => {
      requireAdmin(request.accountability);
      return reply.header('content-disposition', 'attachment; filename="schema.ts"').type('text/plain; charset=utf-8').send(typescriptTypes(schema()));
    });
  };
}
