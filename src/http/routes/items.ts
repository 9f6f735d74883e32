/**
 * /items: flat and (later) nested reads. GET and SEARCH parse into the same Query IR; the service answers with the
 * database's JSON text, sent inside REST's data envelope without being parsed. Writes are registered from
 * item-writes.ts.
 */
import type { FastifyPluginAsync } from 'fastify';
import { InvalidPayloadError } from '../../errors/catalogue.js';
import type { KeyInput, Query } from '../../request/query.js';
import { parseQuery } from '../../request/parse-query.js';
import type { AppContext } from '../../services/app-context.js';
import { sendData } from '../data-reply.js';
import { registerItemWrites } from './item-writes.js';
import { sendExport } from './export-reply.js';

type CollectionParams = { collection: string };
type ItemParams = { collection: string; pk: string };

export function itemRoutes(context: AppContext): FastifyPluginAsync {
  const parseOptions = { queryLimitMax: context.config.queryLimitMax, maxRelationalDepth: context.config.maxRelationalDepth, maxJsonQueryDepth: context.config.maxJsonQueryDepth };

  return async (app) => {
    app.get<{ Params: CollectionParams }>('/:collection', async (request, reply) => {
      const raw = request.query as Record<string, unknown>;
      const query = parseQuery(raw, parseOptions);
      request.timer.mark('parse');
      // `export=` (empty) is no export, as in Directus.
      if (raw.export !== undefined && raw.export !== '') return sendExport(context, reply, request.params.collection, query, raw.export, request.accountability);
      return sendData(reply, await context.items.readMany(request.params.collection, query, request.accountability, request.timer));
    });

    app.route<{ Params: CollectionParams; Body: unknown }>({
      method: 'SEARCH',
      url: '/:collection',
      handler: async (request, reply) => {
        const query = searchBodyQuery(request.body, parseOptions);
        request.timer.mark('parse');
        return sendData(reply, await context.items.readMany(request.params.collection, query, request.accountability, request.timer));
      },
    });

    app.get<{ Params: ItemParams }>('/:collection/:pk', async (request, reply) => {
      const query = parseQuery(request.query as Record<string, unknown>, parseOptions);
      request.timer.mark('parse');
      return sendData(reply, await context.items.readOne(request.params.collection, request.params.pk, query, request.accountability, request.timer));
    });

    registerItemWrites(app, context, parseOptions);
  };
}

/** SEARCH body: `{query: {...}}` and/or `{keys: [...]}` (Directus docs: Items); the URL query is ignored. */
function searchBodyQuery(body: unknown, options: Parameters<typeof parseQuery>[1]): Query {
  if (body === undefined || body === null) throw new InvalidPayloadError('Payload in body is required');
  if (typeof body !== 'object' || Array.isArray(body)) throw new InvalidPayloadError('"body" must be an object');
  const { query, keys, ...rest } = body as Record<string, unknown>;
  const unknownKey = Object.keys(rest)[0];
  if (unknownKey !== undefined) throw new InvalidPayloadError(`"${unknownKey}" is not allowed`);
  if (query !== undefined && (typeof query !== 'object' || query === null || Array.isArray(query))) {
    throw new InvalidPayloadError('"query" must be an object');
  }
  const parsed = parseQuery((query as Record<string, unknown>) ?? {}, options);
  if (keys !== undefined) {
    if (!Array.isArray(keys) || keys.some((k) => typeof k !== 'string' && typeof k !== 'number' && (typeof k !== 'object' || k === null || Array.isArray(k)))) {
      throw new InvalidPayloadError('"keys" must be an array of strings, numbers or objects of key fields');
    }
    parsed.keys = keys as KeyInput[];
  }
  return parsed;
}
