/**
 * POST / PATCH / DELETE on /items (Directus docs: Items), registered inside the /items plugin. Thin: the collection is
 * checked first (403 before any body error, as Directus), the body is parsed into the write IR, the writer does the
 * rest. A write the caller may not read back answers 204, as every DELETE does.
 */
import type { FastifyInstance } from 'fastify';
import { parseQuery, type QueryParseOptions } from '../../request/parse-query.js';
import { parseCreateBody, parseDeleteBody, parseItemBody, parseUpdateBody } from '../../request/write-body.js';
import type { AppContext } from '../../services/app-context.js';
import { sendData } from '../data-reply.js';

type CollectionParams = { collection: string };
type ItemParams = { collection: string; pk: string };

export function registerItemWrites(app: FastifyInstance, context: AppContext, parseOptions: QueryParseOptions): void {
  const { writer } = context;

  app.post<{ Params: CollectionParams; Body: unknown }>('/:collection', async (request, reply) => {
    const { collection } = request.params;
    await writer.checkWritable(collection, 'create', request.accountability);
    const query = parseQuery(request.query as Record<string, unknown>, parseOptions);
    const { many, items } = parseCreateBody(request.body);
    request.timer.mark('parse');
    return sendData(reply, await writer.create(collection, items, many, query, request.accountability, request.timer));
  });

  app.patch<{ Params: CollectionParams; Body: unknown }>('/:collection', async (request, reply) => {
    const { collection } = request.params;
    await writer.checkWritable(collection, 'update', request.accountability);
    const query = parseQuery(request.query as Record<string, unknown>, parseOptions);
    if (writer.isSingleton(collection)) {
      const payload = parseItemBody(request.body);
      request.timer.mark('parse');
      return sendData(reply, await writer.upsertSingleton(collection, payload, query, request.accountability, request.timer));
    }
    const body = parseUpdateBody(request.body, parseOptions);
    request.timer.mark('parse');
    return sendData(reply, await writer.updateMany(collection, body, query, request.accountability, request.timer));
  });

  app.patch<{ Params: ItemParams; Body: unknown }>('/:collection/:pk', async (request, reply) => {
    const { collection, pk } = request.params;
    await writer.checkWritable(collection, 'update', request.accountability);
    const query = parseQuery(request.query as Record<string, unknown>, parseOptions);
    const payload = parseItemBody(request.body);
    request.timer.mark('parse');
    return sendData(reply, await writer.updateOne(collection, pk, payload, query, request.accountability, request.timer));
  });

  app.delete<{ Params: CollectionParams; Body: unknown }>('/:collection', async (request, reply) => {
    const { collection } = request.params;
    await writer.checkWritable(collection, 'delete', request.accountability);
    const body = parseDeleteBody(request.body, parseOptions);
    request.timer.mark('parse');
    await writer.delete(collection, body, request.accountability, request.timer);
    return reply.code(204).send();
  });

  app.delete<{ Params: ItemParams }>('/:collection/:pk', async (request, reply) => {
    const { collection, pk } = request.params;
    await writer.checkWritable(collection, 'delete', request.accountability);
    request.timer.mark('parse');
    await writer.delete(collection, { kind: 'keys', keys: [pk] }, request.accountability, request.timer);
    return reply.code(204).send();
  });
}
