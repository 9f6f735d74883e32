/**
 * @directus/sdk sends `Content-Type: application/json` on every request, DELETE included, with no body; Fastify
 * would refuse that as an empty JSON body. A DELETE without a body drops the header before parsing. (Registered by
 * the schema routes; the same hook fits every DELETE route.)
 */
import type { FastifyRequest } from 'fastify';

export async function ignoreBodylessDeleteContentType(request: FastifyRequest): Promise<void> {
  if (request.method !== 'DELETE') return;
  const length = request.headers['content-length'];
  if ((length === undefined || length === '0') && request.headers['transfer-encoding'] === undefined)
    delete request.headers['content-type'];
}
