/**
 * /fields (Directus docs: Fields): field objects of every collection, of one, or one field; create, change (one, or an
 * array for a collection), delete (204). None of these takes query parameters.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { FieldsService } from '../../schema-admin/fields-service.js';
import { FieldBatchBody, FieldCreateBody, FieldUpdateBody } from '../../schema-admin/input/field-input.js';
import { ignoreBodylessDeleteContentType } from '../bodyless-delete.js';
import { declareRoute, type RouteDeclaration } from '../route-declaration.js';
import { ANY_DATA, listOf } from './route-answers.js';

type CollectionParams = { collection: string };
type FieldParams = { collection: string; field: string };

const tags = ['Fields'];
export const FIELD_ROUTES = {
  readAll: {
    method: 'GET',
    url: '/fields',
    summary: 'Fields the caller may see',
    tags,
    audience: 'schema',
    response: listOf('The fields'),
  },
  readCollection: {
    method: 'GET',
    url: '/fields/:collection',
    summary: 'Fields of a collection',
    tags,
    audience: 'schema',
    response: listOf('The fields'),
  },
  readOne: {
    method: 'GET',
    url: '/fields/:collection/:field',
    summary: 'One field',
    tags,
    audience: 'schema',
    response: ANY_DATA,
  },
  create: {
    method: 'POST',
    url: '/fields/:collection',
    summary: 'Create a field',
    tags,
    audience: 'admin',
    body: FieldCreateBody,
    response: ANY_DATA,
  },
  updateMany: {
    method: 'PATCH',
    url: '/fields/:collection',
    summary: 'Update several fields',
    tags,
    audience: 'admin',
    body: FieldBatchBody,
    response: ANY_DATA,
  },
  update: {
    method: 'PATCH',
    url: '/fields/:collection/:field',
    summary: 'Update a field',
    tags,
    audience: 'admin',
    body: FieldUpdateBody,
    response: ANY_DATA,
  },
  delete: {
    method: 'DELETE',
    url: '/fields/:collection/:field',
    summary: 'Delete a field and its data',
    tags,
    audience: 'admin',
    response: null,
  },
} satisfies Record<string, RouteDeclaration>;

export interface FieldRoutesDeps {
  fields: FieldsService;
}

export function fieldRoutes(context: FieldRoutesDeps): FastifyPluginAsync {
  const routes = FIELD_ROUTES;
  return async (app) => {
    app.addHook('onRequest', ignoreBodylessDeleteContentType);

    declareRoute(app, routes.readAll, async (request) => ({
      data: await context.fields.readAll(request.accountability),
    }));

    declareRoute<{ Params: CollectionParams }>(app, routes.readCollection, async (request) => ({
      data: await context.fields.readCollection(request.accountability, request.params.collection),
    }));

    declareRoute<{ Params: FieldParams }>(app, routes.readOne, async (request) => ({
      data: await context.fields.readOne(request.accountability, request.params.collection, request.params.field),
    }));

    declareRoute<{ Params: CollectionParams }>(app, routes.create, async (request) => ({
      data: await context.fields.create(request.accountability, request.params.collection, request.body),
    }));

    declareRoute<{ Params: CollectionParams }>(app, routes.updateMany, async (request) => ({
      data: await context.fields.updateMany(request.accountability, request.params.collection, request.body),
    }));

    declareRoute<{ Params: FieldParams }>(app, routes.update, async (request) => ({
      data: await context.fields.update(
        request.accountability,
        request.params.collection,
        request.params.field,
        request.body,
      ),
    }));

    declareRoute<{ Params: FieldParams }>(app, routes.delete, async (request, reply) => {
      await context.fields.delete(request.accountability, request.params.collection, request.params.field);
      return reply.code(204).send();
    });
  };
}
