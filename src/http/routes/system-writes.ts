/**
 * POST / PATCH / DELETE on the system collections (Directus docs: Users, roles and policies): the /items write semantics over the service_*
 * tables, plus `PATCH /users/me` (the caller's own row, under the same rules), `PATCH /users/me/track/page` and
 * `PATCH /settings` (singleton).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { InvalidCredentialsError } from '../../errors/catalogue.js';
import { parseQuery, type QueryParseOptions } from '../../request/parse-query.js';
import {
  parseCreateBody,
  parseDeleteBody,
  parseItemBody,
  parseTrackPageBody,
  parseUpdateBody,
} from '../../request/write-body.js';
import type { AppContext } from '../../app/app-context.js';
import { sendData } from '../data-reply.js';

export function registerSystemWrites(
  app: FastifyInstance,
  context: AppContext,
  routes: Record<string, string>,
  parseOptions: QueryParseOptions,
): void {
  const { writer } = context;
  const system = { system: true };
  const query = (request: FastifyRequest) => parseQuery(request.query as Record<string, unknown>, parseOptions);

  app.patch('/users/me', async (request, reply) => {
    const user = request.accountability.user;
    if (!user) throw new InvalidCredentialsError();
    const target = await writer.open('service_users', 'update', request.accountability, system);
    const payload = parseItemBody(request.body);
    request.timer.mark('parse');
    return sendData(reply, await writer.updateOne(target, user, payload, query(request), request.timer));
  });

  // Directus records the page whatever the caller's permissions on users (the app's own bookkeeping).
  app.patch('/users/me/track/page', async (request, reply) => {
    const user = request.accountability.user;
    if (!user) throw new InvalidCredentialsError();
    const lastPage = parseTrackPageBody(request.body);
    const target = await writer.open('service_users', 'update', { ...request.accountability, admin: true }, system);
    await writer.updateOne(target, user, { last_page: lastPage }, { fields: ['id'] }, request.timer);
    return reply.code(204).send();
  });

  app.patch('/settings', async (request, reply) => {
    // Created or updated: the rules of what the write turns out to be apply (checked with the write).
    const target = await writer.open('service_settings', null, request.accountability, system);
    const payload = parseItemBody(request.body);
    request.timer.mark('parse');
    return sendData(reply, await writer.upsertSingleton(target, payload, query(request), request.timer));
  });

  for (const [route, table] of Object.entries(routes)) {
    app.post(`/${route}`, async (request, reply) => {
      const target = await writer.open(table, 'create', request.accountability, system);
      const { many, items } = parseCreateBody(request.body);
      request.timer.mark('parse');
      return sendData(reply, await writer.create(target, items, many, query(request), request.timer));
    });

    app.patch(`/${route}`, async (request, reply) => {
      const target = await writer.open(table, 'update', request.accountability, system);
      const body = parseUpdateBody(request.body, parseOptions);
      request.timer.mark('parse');
      return sendData(reply, await writer.updateMany(target, body, query(request), request.timer));
    });

    app.patch<{ Params: { pk: string } }>(`/${route}/:pk`, async (request, reply) => {
      const target = await writer.open(table, 'update', request.accountability, system);
      const payload = parseItemBody(request.body);
      request.timer.mark('parse');
      return sendData(reply, await writer.updateOne(target, request.params.pk, payload, query(request), request.timer));
    });

    app.delete(`/${route}`, async (request, reply) => {
      const target = await writer.open(table, 'delete', request.accountability, system);
      const body = parseDeleteBody(request.body, parseOptions);
      request.timer.mark('parse');
      await writer.delete(target, body, request.timer);
      return reply.code(204).send();
    });

    app.delete<{ Params: { pk: string } }>(`/${route}/:pk`, async (request, reply) => {
      const target = await writer.open(table, 'delete', request.accountability, system);
      request.timer.mark('parse');
      await writer.delete(target, { kind: 'keys', keys: [request.params.pk] }, request.timer);
      return reply.code(204).send();
    });
  }
}
