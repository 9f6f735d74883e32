/**
 * /collections (Directus docs: Collections): collection objects; create (with fields, or a folder), change meta (one, or an
 * array), delete (204).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../../app/app-context.js';
import { ignoreBodylessDeleteContentType } from '../bodyless-delete.js';

type CollectionParams = { collection: string };

export function collectionRoutes(context: AppContext): FastifyPluginAsync {
  return async (app) => {
    app.addHook('onRequest', ignoreBodylessDeleteContentType);

    app.get('/', async (request) => ({ data: await context.collections.readAll(request.accountability) }));

    app.get<{ Params: CollectionParams }>('/:collection', async (request) => ({
      data: await context.collections.readOne(request.accountability, request.params.collection),
    }));

    app.post('/', async (request) => ({
      data: await context.collections.create(request.accountability, request.body),
    }));

    app.patch('/', async (request) => ({
      data: await context.collections.updateMany(request.accountability, request.body),
    }));

    app.patch<{ Params: CollectionParams }>('/:collection', async (request) => ({
      data: await context.collections.update(request.accountability, request.params.collection, request.body),
    }));

    app.delete<{ Params: CollectionParams }>('/:collection', async (request, reply) => {
      await context.collections.delete(request.accountability, request.params.collection);
      return reply.code(204).send();
    });
  };
}
