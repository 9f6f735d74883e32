/**
 * /relations (Directus docs: Relations): relation objects of every collection, of one (its "many" side), or one; create,
 * change, delete (204).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../../app/app-context.js';
import { ignoreBodylessDeleteContentType } from '../bodyless-delete.js';

type CollectionParams = { collection: string };
type FieldParams = { collection: string; field: string };

export function relationRoutes(context: AppContext): FastifyPluginAsync {
  return async (app) => {
    app.addHook('onRequest', ignoreBodylessDeleteContentType);

    app.get('/', async (request) => ({ data: await context.relations.readAll(request.accountability) }));

    app.get<{ Params: CollectionParams }>('/:collection', async (request) => ({
      data: await context.relations.readCollection(request.accountability, request.params.collection),
    }));

    app.get<{ Params: FieldParams }>('/:collection/:field', async (request) => ({
      data: await context.relations.readOne(request.accountability, request.params.collection, request.params.field),
    }));

    app.post('/', async (request) => ({ data: await context.relations.create(request.accountability, request.body) }));

    app.patch<{ Params: FieldParams }>('/:collection/:field', async (request) => ({
      data: await context.relations.update(
        request.accountability,
        request.params.collection,
        request.params.field,
        request.body,
      ),
    }));

    app.delete<{ Params: FieldParams }>('/:collection/:field', async (request, reply) => {
      await context.relations.delete(request.accountability, request.params.collection, request.params.field);
      return reply.code(204).send();
    });
  };
}
