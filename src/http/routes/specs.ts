/**
 * `GET /server/specs/oas`: the OpenAPI document of what the caller may do (raw JSON, not wrapped in `data`, as
 * Directus answers it); `?openapi=3.1` for OpenAPI 3.1 instead of 3.0.
 */
import type { FastifyPluginAsync } from 'fastify';
import { InvalidQueryError } from '../../errors/catalogue.js';
import type { OasVersion } from '../../specs/json-schema.js';
import type { SpecsService } from '../../specs/specs-service.js';

export function specsRoutes(specs: SpecsService): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Querystring: { openapi?: unknown } }>('/server/specs/oas', async (request, reply) => {
      const requested = request.query.openapi;
      if (requested !== undefined && requested !== '3.0' && requested !== '3.1') throw new InvalidQueryError('"openapi" must be 3.0 or 3.1');
      const answer = await specs.oas(request.accountability, (requested ?? '3.0') as OasVersion);
      return reply.type('application/json; charset=utf-8').send(answer.text);
    });
  };
}
