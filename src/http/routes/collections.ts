/**
 * /collections (Directus docs: Collections): collection objects; create (with fields, or a folder), change meta (one, or an
 * array), delete (204).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { CollectionsService } from '../../schema-admin/collections-service.js';
import {
  CollectionBatchBody,
  CollectionCreateManyBody,
  CollectionUpdateBody,
} from '../../schema-admin/input/collection-input.js';
import { ignoreBodylessDeleteContentType } from '../bodyless-delete.js';
import { declareRoute, type RouteDeclaration } from '../route-declaration.js';
import { ANY_DATA, LIST } from './route-answers.js';

type CollectionParams = { collection: string };

const tags = ['Collections'];
export const COLLECTION_ROUTES = {
  readAll: {
    method: 'GET',
    url: '/collections',
    summary: 'Collections the caller may see',
    tags,
    audience: 'schema',
    response: { description: 'The collections', data: LIST },
  },
  readOne: {
    method: 'GET',
    url: '/collections/:collection',
    summary: 'One collection',
    tags,
    audience: 'schema',
    response: ANY_DATA,
  },
  create: {
    method: 'POST',
    url: '/collections',
    summary: 'Create a collection (with its fields), or several (an array: all or none)',
    tags,
    audience: 'admin',
    body: CollectionCreateManyBody,
    response: ANY_DATA,
  },
  updateMany: {
    method: 'PATCH',
    url: '/collections',
    summary: 'Update the meta of several collections',
    tags,
    audience: 'admin',
    body: CollectionBatchBody,
    response: ANY_DATA,
  },
  update: {
    method: 'PATCH',
    url: '/collections/:collection',
    summary: 'Update a collection’s meta',
    tags,
    audience: 'admin',
    body: CollectionUpdateBody,
    response: ANY_DATA,
  },
  delete: {
    method: 'DELETE',
    url: '/collections/:collection',
    summary: 'Delete a collection and its data',
    tags,
    audience: 'admin',
    response: null,
  },
} satisfies Record<string, RouteDeclaration>;

export interface CollectionRoutesDeps {
  collections: CollectionsService;
}

export function collectionRoutes(context: CollectionRoutesDeps): FastifyPluginAsync {
  const routes = COLLECTION_ROUTES;
  return async (app) => {
    app.addHook('onRequest', ignoreBodylessDeleteContentType);

    declareRoute(app, routes.readAll, async (request) => ({
      data: await context.collections.readAll(request.accountability),
    }));

    declareRoute<{ Params: CollectionParams }>(app, routes.readOne, async (request) => ({
      data: await context.collections.readOne(request.accountability, request.params.collection),
    }));

    declareRoute(app, routes.create, async (request) => ({
      data: await context.collections.createOneOrMany(request.accountability, request.body),
    }));

    declareRoute(app, routes.updateMany, async (request) => ({
      data: await context.collections.updateMany(request.accountability, request.body),
    }));

    declareRoute<{ Params: CollectionParams }>(app, routes.update, async (request) => ({
      data: await context.collections.update(request.accountability, request.params.collection, request.body),
    }));

    declareRoute<{ Params: CollectionParams }>(app, routes.delete, async (request, reply) => {
      await context.collections.delete(request.accountability, request.params.collection);
      return reply.code(204).send();
    });
  };
}
