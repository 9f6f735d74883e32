/**
 * /fields (Directus docs: Fields): field objects of every collection, of one, or one field; create, change (one, or an
 * array for a collection), delete (204). None of these takes query parameters.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../../app/app-context.js';
import { ignoreBodylessDeleteContentType } from '../bodyless-delete.js';

type CollectionParams = { collection: string };
type FieldParams = { collection: string; field: string };

export function fieldRoutes(context: AppContext): FastifyPluginAsync {
  return async (app) => {
    app.addHook('onRequest', ignoreBodylessDeleteContentType);

    app.get('/', async (request) => ({ data: await context.fields.readAll(request.accountability) }));

    app.get<{ Params: CollectionParams }>('/:collection', async (request) => ({
      data: await context.fields.readCollection(request.accountability, request.params.collection),
    }));

    app.get<{ Params: FieldParams }>('/:collection/:field', async (request) => ({
      data: await context.fields.readOne(request.accountability, request.params.collection, request.params.field),
    }));

    app.post<{ Params: CollectionParams }>('/:collection', async (request) => ({
      data: await context.fields.create(request.accountability, request.params.collection, request.body),
    }));

    app.patch<{ Params: CollectionParams }>('/:collection', async (request) => ({
      data: await context.fields.updateMany(request.accountability, request.params.collection, request.body),
    }));

    app.patch<{ Params: FieldParams }>('/:collection/:field', async (request) => ({
      data: await context.fields.update(
        request.accountability,
        request.params.collection,
        request.params.field,
        request.body,
      ),
    }));

    app.delete<{ Params: FieldParams }>('/:collection/:field', async (request, reply) => {
      await context.fields.delete(request.accountability, request.params.collection, request.params.field);
      return reply.code(204).send();
    });
  };
}
