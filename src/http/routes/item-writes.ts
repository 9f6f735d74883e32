/**
 * POST / PATCH / DELETE on /items (Directus docs: Items), registered inside the /items plugin. Thin: the collection is
 * opened first (the one writability check: 403 before any body error, as Directus), the body is parsed into the
 * write IR, the writer does the rest. A write the caller may not read back answers 204, as every DELETE does.
 */
import type { FastifyInstance } from 'fastify';
import { parseQuery, type QueryParseOptions } from '../../request/parse-query.js';
import { parseCreateBody, parseDeleteBody, parseItemBody, parseUpdateBody } from '../../request/write-body.js';
import type { ItemsApi } from '../../app/ports.js';
import { sendData } from '../data-reply.js';
import { writeClient } from '../write-client.js';

type CollectionParams = { collection: string };
type ItemParams = { collection: string; pk: string };

export function registerItemWrites(app: FastifyInstance, context: ItemsApi, parseOptions: QueryParseOptions): void {
  const { writer } = context;

  app.post<{ Params: CollectionParams; Body: unknown }>('/:collection', async (request, reply) => {
    const { collection } = request.params;
    const target = await writer.open(collection, 'create', request.accountability, { client: writeClient(request) });
    const query = parseQuery(request.query as Record<string, unknown>, parseOptions);
    const { many, items } = parseCreateBody(request.body);
    request.timer.mark('parse');
    return sendData(reply, await writer.create(target, items, many, query, request.timer));
  });

  app.patch<{ Params: CollectionParams; Body: unknown }>('/:collection', async (request, reply) => {
    const { collection } = request.params;
    const target = await writer.open(collection, 'update', request.accountability, { client: writeClient(request) });
    const query = parseQuery(request.query as Record<string, unknown>, parseOptions);
    if (target.collection.singleton) {
      const payload = parseItemBody(request.body);
      request.timer.mark('parse');
      return sendData(reply, await writer.upsertSingleton(target, payload, query, request.timer));
    }
    const body = parseUpdateBody(request.body, parseOptions);
    request.timer.mark('parse');
    return sendData(reply, await writer.updateMany(target, body, query, request.timer));
  });

  app.patch<{ Params: ItemParams; Body: unknown }>('/:collection/:pk', async (request, reply) => {
    const { collection, pk } = request.params;
    const target = await writer.open(collection, 'update', request.accountability, { client: writeClient(request) });
    const query = parseQuery(request.query as Record<string, unknown>, parseOptions);
    const payload = parseItemBody(request.body);
    request.timer.mark('parse');
    return sendData(reply, await writer.updateOne(target, pk, payload, query, request.timer));
  });

  app.delete<{ Params: CollectionParams; Body: unknown }>('/:collection', async (request, reply) => {
    const { collection } = request.params;
    const target = await writer.open(collection, 'delete', request.accountability, { client: writeClient(request) });
    const body = parseDeleteBody(request.body, parseOptions);
    request.timer.mark('parse');
    await writer.delete(target, body, request.timer);
    return reply.code(204).send();
  });

  app.delete<{ Params: ItemParams }>('/:collection/:pk', async (request, reply) => {
    const { collection, pk } = request.params;
    const target = await writer.open(collection, 'delete', request.accountability, { client: writeClient(request) });
    request.timer.mark('parse');
    await writer.delete(target, { kind: 'keys', keys: [pk] }, request.timer);
    return reply.code(204).send();
  });
}
