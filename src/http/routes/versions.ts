/**
 * The content-version actions (Directus docs: Content versions): save changes to a version, compare it with its main
 * item, promote it. The version rows themselves are served as items at /versions (system-collections.ts), and
 * `?version=` on /items/{collection}/{key} by items.ts.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ItemsApi } from '../../app/ports.js';
import type { VersionsService } from '../../engine/versions/versions-service.js';
import { parsePromoteBody, PromoteBody } from '../../request/version-body.js';
import { ItemBody, parseItemBody } from '../../request/write-body.js';
import { declareRoute, type RouteDeclaration } from '../route-declaration.js';
import { ANY_DATA } from './route-answers.js';

export interface VersionRoutesDeps extends ItemsApi {
  versions: VersionsService;
}

type VersionParams = { Params: { pk: string } };

export const VERSION_ROUTES = {
  save: {
    method: 'POST',
    url: '/versions/:pk/save',
    summary: 'Save changes to a content version; answers the item as of the version',
    tags: ['Versions'],
    audience: 'user',
    body: ItemBody,
    response: ANY_DATA,
  },
  compare: {
    method: 'GET',
    url: '/versions/:pk/compare',
    summary: 'Compare a content version with its main item',
    tags: ['Versions'],
    audience: 'user',
    response: ANY_DATA,
  },
  promote: {
    method: 'POST',
    url: '/versions/:pk/promote',
    summary: 'Write a content version’s changes to its main item',
    tags: ['Versions'],
    audience: 'user',
    body: PromoteBody,
    response: ANY_DATA,
  },
} satisfies Record<string, RouteDeclaration>;

export function versionRoutes(context: VersionRoutesDeps): FastifyPluginAsync {
  return async (app) => {
    declareRoute<VersionParams>(app, VERSION_ROUTES.save, async (request) => {
      const changes = parseItemBody(request.body);
      return { data: await context.versions.save(request.params.pk, changes, request.accountability) };
    });
    declareRoute<VersionParams>(app, VERSION_ROUTES.compare, async (request) => ({
      data: await context.versions.compare(request.params.pk, request.accountability),
    }));
    declareRoute<VersionParams>(app, VERSION_ROUTES.promote, async (request) => {
      const body = parsePromoteBody(request.body);
      return { data: await context.versions.promote(request.params.pk, body, request.accountability) };
    });
  };
}
