/**
 * /items: flat and (later) nested reads. GET and SEARCH parse into the same Query IR; the service answers with the
 * database's JSON text, sent inside REST's data envelope without being parsed. Writes are registered from
 * item-writes.ts.
 */
import type { FastifyPluginAsync } from 'fastify';
import { parseQuery } from '../../request/parse-query.js';
import type { Query } from '../../request/query.js';
import { deepFreeze } from '../query-string.js';
import { parseSearchBody } from '../../request/search-body.js';
import type { CallerApi, ItemsApi } from '../../app/ports.js';
import type { VersionsService } from '../../engine/versions/versions-service.js';
import { InvalidQueryError } from '../../errors/catalogue.js';
import { sendData } from '../data-reply.js';
import { registerItemWrites } from './item-writes.js';
import { sendExport } from './export-reply.js';
import { cachedRead, normalQueryString } from '../cached-read.js';
import { dataBody } from '../data-reply.js';
import { earlyHit, type OnRequest } from '../early-hit.js';

type CollectionParams = { collection: string };
type ItemParams = { collection: string; pk: string };

/** `?version=<key>`: an item as of a content version; absent or empty, the item itself. */
function versionParam(value: unknown): string | null {
  if (value === undefined || value === '') return null;
  if (typeof value !== 'string') throw new InvalidQueryError('"version" must be a string');
  return value;
}

export interface ItemRoutesDeps extends ItemsApi, CallerApi {
  versions: VersionsService;
}

/** Answers from memory: user collections only (system ones hold accounts, tokens and settings). */
function cachedReads(context: ItemRoutesDeps) {
  const cacheConfig = context.config.responseCache;
  const responses = context.responses;
  // A collection whose reads a `query` hook may change answers past the cache (its answer depends on the hook).
  const cacheFor = (collection: string) =>
    collection.startsWith('directus_') || collection.startsWith('service_') || context.items.hasQueryHooks(collection)
      ? null
      : responses;
  const material = (url: string) => `GET\u0000${url.split('?', 1)[0]}\u0000${normalQueryString(url)}`;
  // A hit answered before the route's own path runs (early-hit.ts): only with a cache in this process's memory.
  const early: OnRequest[] = responses?.inMemory
    ? [
        earlyHit({
          callers: context,
          cache: responses,
          cacheable: (request) => cacheFor((request.params as CollectionParams).collection) !== null,
          material: (request) => material(request.url),
        }),
      ]
    : [];
  return { cacheConfig, cacheFor, material, early };
}

export function itemRoutes(context: ItemRoutesDeps): FastifyPluginAsync {
  const parseOptions = {
    queryLimitMax: context.config.queryLimitMax,
    maxRelationalDepth: context.config.maxRelationalDepth,
    maxJsonQueryDepth: context.config.maxJsonQueryDepth,
  };

  // A query string seen before parses to the same frozen object (http/query-string.ts): its Query IR is kept with
  // it, frozen too. Parse errors are not kept: such a request fails again the same way.
  const parsed = new WeakMap<object, Query>();
  const parseKept = (raw: Record<string, unknown>): Query => {
    let query = parsed.get(raw);
    if (!query) {
      query = parseQuery(raw, parseOptions);
      if (Object.isFrozen(raw)) parsed.set(raw, deepFreeze(query));
    }
    return query;
  };

  const { cacheConfig, cacheFor, material, early } = cachedReads(context);

  return async (app) => {
    app.get<{ Params: CollectionParams }>('/:collection', { onRequest: early }, async (request, reply) => {
      const raw = request.query as Record<string, unknown>;
      const query = parseKept(raw);
      request.timer.mark('parse');
      // `export=` (empty) is no export, as in Directus.
      if (raw.export !== undefined && raw.export !== '')
        return sendExport(context, reply, request.params.collection, query, raw.export, request.accountability);
      const cache = cacheFor(request.params.collection);
      if (cache)
        return cachedRead(cache, cacheConfig, request, reply, material(request.url), async () =>
          dataBody(
            await context.items.readMany(request.params.collection, query, request.accountability, request.timer),
          ),
        );
      return sendData(
        reply,
        await context.items.readMany(request.params.collection, query, request.accountability, request.timer),
      );
    });

    app.route<{ Params: CollectionParams; Body: unknown }>({
      method: 'SEARCH',
      url: '/:collection',
      handler: async (request, reply) => {
        const query = parseSearchBody(request.body, parseOptions);
        request.timer.mark('parse');
        return sendData(
          reply,
          await context.items.readMany(request.params.collection, query, request.accountability, request.timer),
        );
      },
    });

    app.get<{ Params: ItemParams }>('/:collection/:pk', { onRequest: early }, async (request, reply) => {
      const raw = request.query as Record<string, unknown>;
      const query = parseQuery(raw, parseOptions);
      request.timer.mark('parse');
      const version = versionParam(raw.version);
      if (version !== null) {
        const { collection, pk } = request.params;
        return { data: await context.versions.readAs(collection, pk, version, query, request.accountability) };
      }
      const { collection, pk } = request.params;
      const cache = cacheFor(collection);
      if (cache)
        return cachedRead(cache, cacheConfig, request, reply, material(request.url), async () =>
          dataBody(await context.items.readOne(collection, pk, query, request.accountability, request.timer)),
        );
      return sendData(
        reply,
        await context.items.readOne(
          request.params.collection,
          request.params.pk,
          query,
          request.accountability,
          request.timer,
        ),
      );
    });

    registerItemWrites(app, context, parseOptions);
  };
}
