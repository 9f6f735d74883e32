/**
 * POST / PATCH / DELETE on the system collections (Directus docs: Users, roles and policies): the /items write semantics over the service_*
 * tables, plus `PATCH /users/me` (the caller's own row, under the same rules), `PATCH /users/me/track/page` and
 * `PATCH /settings` (singleton).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { InvalidCredentialsError } from '../../errors/catalogue.js';
import { parseQuery, type QueryParseOptions } from '../../request/parse-query.js';
import {
  ItemBody,
  parseCreateBody,
  parseDeleteBody,
  parseItemBody,
  parseTrackPageBody,
  parseUpdateBody,
  TrackPageBody,
} from '../../request/write-body.js';
import type { ItemsApi } from '../../app/ports.js';
import { sendData } from '../data-reply.js';
import { writeClient } from '../write-client.js';
import { declareRoute, type RouteDeclaration } from '../route-declaration.js';
import { ANY_DATA } from './route-answers.js';

/** Routes whose creates, single updates and deletes carry bytes (files.ts registers them): batch PATCH only here. */
const CONTENT_ROUTES: ReadonlySet<string> = new Set(['files']);

export const ME_WRITE_ROUTES = {
  updateUser: {
    method: 'PATCH',
    url: '/users/me',
    summary: 'Update the caller’s user',
    tags: ['Users'],
    audience: 'user',
    body: ItemBody,
    response: ANY_DATA,
  },
  trackPage: {
    method: 'PATCH',
    url: '/users/me/track/page',
    summary: 'Remember the caller’s last page',
    tags: ['Users'],
    audience: 'user',
    body: TrackPageBody,
    response: null,
  },
} satisfies Record<string, RouteDeclaration>;

export function registerSystemWrites(
  app: FastifyInstance,
  context: ItemsApi,
  routes: Record<string, string>,
  parseOptions: QueryParseOptions,
): void {
  const { writer } = context;
  const system = { system: true };
  const query = (request: FastifyRequest) => parseQuery(request.query as Record<string, unknown>, parseOptions);

  declareRoute(app, ME_WRITE_ROUTES.updateUser, async (request, reply) => {
    const user = request.accountability.user;
    if (!user) throw new InvalidCredentialsError();
    const target = await writer.open('service_users', 'update', request.accountability, {
      ...system,
      client: writeClient(request),
    });
    const payload = parseItemBody(request.body);
    request.timer.mark('parse');
    return sendData(reply, await writer.updateOne(target, user, payload, query(request), request.timer));
  });

  // Directus records the page (without activity) whatever the caller's permissions on users (the app's own bookkeeping).
  declareRoute(app, ME_WRITE_ROUTES.trackPage, async (request, reply) => {
    const user = request.accountability.user;
    if (!user) throw new InvalidCredentialsError();
    const lastPage = parseTrackPageBody(request.body);
    const target = await writer.open(
      'service_users',
      'update',
      { ...request.accountability, admin: true },
      { ...system, trail: false },
    );
    await writer.updateOne(target, user, { last_page: lastPage }, { fields: ['id'] }, request.timer);
    return reply.code(204).send();
  });

  app.patch('/settings', async (request, reply) => {
    // Created or updated: the rules of what the write turns out to be apply (checked with the write).
    const target = await writer.open('service_settings', null, request.accountability, {
      ...system,
      client: writeClient(request),
    });
    const payload = parseItemBody(request.body);
    request.timer.mark('parse');
    return sendData(reply, await writer.upsertSingleton(target, payload, query(request), request.timer));
  });

  for (const [route, table] of Object.entries(routes)) {
    app.patch(`/${route}`, async (request, reply) => {
      const target = await writer.open(table, 'update', request.accountability, {
        ...system,
        client: writeClient(request),
      });
      const body = parseUpdateBody(request.body, parseOptions);
      request.timer.mark('parse');
      return sendData(reply, await writer.updateMany(target, body, query(request), request.timer));
    });
    if (CONTENT_ROUTES.has(route)) continue;

    app.post(`/${route}`, async (request, reply) => {
      const target = await writer.open(table, 'create', request.accountability, {
        ...system,
        client: writeClient(request),
      });
      const { many, items } = parseCreateBody(request.body);
      request.timer.mark('parse');
      return sendData(reply, await writer.create(target, items, many, query(request), request.timer));
    });

    app.patch<{ Params: { pk: string } }>(`/${route}/:pk`, async (request, reply) => {
      const target = await writer.open(table, 'update', request.accountability, {
        ...system,
        client: writeClient(request),
      });
      const payload = parseItemBody(request.body);
      request.timer.mark('parse');
      return sendData(reply, await writer.updateOne(target, request.params.pk, payload, query(request), request.timer));
    });

    app.delete(`/${route}`, async (request, reply) => {
      const target = await writer.open(table, 'delete', request.accountability, {
        ...system,
        client: writeClient(request),
      });
      const body = parseDeleteBody(request.body, parseOptions);
      request.timer.mark('parse');
      await writer.delete(target, body, request.timer);
      return reply.code(204).send();
    });

    app.delete<{ Params: { pk: string } }>(`/${route}/:pk`, async (request, reply) => {
      const target = await writer.open(table, 'delete', request.accountability, {
        ...system,
        client: writeClient(request),
      });
      request.timer.mark('parse');
      await writer.delete(target, { kind: 'keys', keys: [request.params.pk] }, request.timer);
      return reply.code(204).send();
    });
  }
}
