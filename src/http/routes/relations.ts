/**
 * /relations (Directus docs: Relations): relation objects of every collection, of one (its "many" side), or one; create,
 * change, delete (204).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { RelationsService } from '../../schema-admin/relations-service.js';
import { RelationCreateBody, RelationUpdateBody } from '../../schema-admin/input/relation-input.js';
import { ignoreBodylessDeleteContentType } from '../bodyless-delete.js';
import { declareRoute, type RouteDeclaration } from '../route-declaration.js';
import { ANY_DATA, listOf } from './route-answers.js';

type CollectionParams = { collection: string };
type FieldParams = { collection: string; field: string };

const tags = ['Relations'];
export const RELATION_ROUTES = {
  readAll: {
    method: 'GET',
    url: '/relations',
    summary: 'Relations the caller may see',
    tags,
    audience: 'schema',
    response: listOf('The relations'),
  },
  readCollection: {
    method: 'GET',
    url: '/relations/:collection',
    summary: 'Relations of a collection',
    tags,
    audience: 'schema',
    response: listOf('The relations'),
  },
  readOne: {
    method: 'GET',
    url: '/relations/:collection/:field',
    summary: 'One relation',
    tags,
    audience: 'schema',
    response: ANY_DATA,
  },
  create: {
    method: 'POST',
    url: '/relations',
    summary: 'Create a relation',
    tags,
    audience: 'admin',
    body: RelationCreateBody,
    response: ANY_DATA,
  },
  update: {
    method: 'PATCH',
    url: '/relations/:collection/:field',
    summary: 'Update a relation',
    tags,
    audience: 'admin',
    body: RelationUpdateBody,
    response: ANY_DATA,
  },
  delete: {
    method: 'DELETE',
    url: '/relations/:collection/:field',
    summary: 'Delete a relation',
    tags,
    audience: 'admin',
    response: null,
  },
} satisfies Record<string, RouteDeclaration>;

export interface RelationRoutesDeps {
  relations: RelationsService;
}

export function relationRoutes(context: RelationRoutesDeps): FastifyPluginAsync {
  const routes = RELATION_ROUTES;
  return async (app) => {
    app.addHook('onRequest', ignoreBodylessDeleteContentType);

    declareRoute(app, routes.readAll, async (request) => ({
      data: await context.relations.readAll(request.accountability),
    }));

    declareRoute<{ Params: CollectionParams }>(app, routes.readCollection, async (request) => ({
      data: await context.relations.readCollection(request.accountability, request.params.collection),
    }));

    declareRoute<{ Params: FieldParams }>(app, routes.readOne, async (request) => ({
      data: await context.relations.readOne(request.accountability, request.params.collection, request.params.field),
    }));

    declareRoute(app, routes.create, async (request) => ({
      data: await context.relations.create(request.accountability, request.body),
    }));

    declareRoute<{ Params: FieldParams }>(app, routes.update, async (request) => ({
      data: await context.relations.update(
        request.accountability,
        request.params.collection,
        request.params.field,
        request.body,
      ),
    }));

    declareRoute<{ Params: FieldParams }>(app, routes.delete, async (request, reply) => {
      await context.relations.delete(request.accountability, request.params.collection, request.params.field);
      return reply.code(204).send();
    });
  };
}
