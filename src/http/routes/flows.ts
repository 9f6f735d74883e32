/**
 * The Flows routes beyond `/flows` and `/operations` CRUD (system-collections.ts): `GET|POST /flows/trigger/:id`
 * (webhook and manual triggers, as Directus) and the outbox's log for admins: `GET /flows/deliveries`,
 * `GET /flows/deliveries/:id`, `POST /flows/deliveries/:id/replay`.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { ForbiddenError } from '../../errors/catalogue.js';
import type { FlowsService } from '../../flows/flows-service.js';
import { declareRoute, type RouteDeclaration } from '../route-declaration.js';
import { ANY_DATA, listOf } from './route-answers.js';

const trigger = (method: 'GET' | 'POST'): RouteDeclaration => ({
  method,
  url: '/flows/trigger/:id',
  summary: method === 'GET' ? 'Run a webhook flow (GET)' : 'Run a webhook flow (POST) or a manual flow',
  tags: ['Flows'],
  audience: 'anyone',
  response: ANY_DATA,
});

export const FLOW_ROUTES = {
  triggerGet: trigger('GET'),
  triggerPost: trigger('POST'),
  deliveries: {
    method: 'GET',
    url: '/flows/deliveries',
    summary: 'The outbox: each event delivery of the flows, newest first (?status, ?flow, ?limit, ?offset)',
    tags: ['Flows'],
    audience: 'admin',
    response: listOf('The deliveries'),
  },
  delivery: {
    method: 'GET',
    url: '/flows/deliveries/:id',
    summary: 'One delivery: status, attempts, last error',
    tags: ['Flows'],
    audience: 'admin',
    response: ANY_DATA,
  },
  replay: {
    method: 'POST',
    url: '/flows/deliveries/:id/replay',
    summary: 'Deliver again now, with fresh attempts',
    tags: ['Flows'],
    audience: 'admin',
    response: ANY_DATA,
  },
} satisfies Record<string, RouteDeclaration>;

export interface FlowRoutesDeps {
  flows: FlowsService;
}

/** A delivery as the log shows it: its payload parsed, times as ISO text. */
function shown(row: Awaited<ReturnType<FlowsService['delivery']>>) {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  let payload: unknown = null;
  try {
    payload = JSON.parse(row.payload);
  } catch {
    payload = row.payload;
  }
  return {
    id: row.id,
    flow: row.flow,
    event: row.event,
    status: row.status,
    attempts: row.attempts,
    last_error: row.last_error,
    next_attempt_at: iso(row.next_attempt_at),
    locked_until: iso(row.locked_until),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    delivered_at: iso(row.delivered_at),
    payload,
  };
}

export function flowRoutes(context: FlowRoutesDeps): FastifyPluginAsync {
  const run = async (request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) => {
    const result = await context.flows.trigger(
      request.params.id,
      {
        method: request.method,
        path: request.url.split('?')[0]!,
        query: request.query as Record<string, unknown>,
        body: request.body ?? null,
        headers: request.headers as Record<string, unknown>,
      },
      request.accountability,
    );
    return result === undefined ? reply.code(204).send() : reply.send(result);
  };
  const admin = (request: FastifyRequest) => {
    if (!request.accountability.admin) throw new ForbiddenError();
  };
  return async (app) => {
    declareRoute<{ Params: { id: string } }>(app, FLOW_ROUTES.triggerGet, run);
    declareRoute<{ Params: { id: string } }>(app, FLOW_ROUTES.triggerPost, run);
    declareRoute(app, FLOW_ROUTES.deliveries, async (request) => {
      admin(request);
      return { data: (await context.flows.list(request.query as Record<string, unknown>)).map(shown) };
    });
    declareRoute<{ Params: { id: string } }>(app, FLOW_ROUTES.delivery, async (request) => {
      admin(request);
      return { data: shown(await context.flows.delivery(request.params.id)) };
    });
    declareRoute<{ Params: { id: string } }>(app, FLOW_ROUTES.replay, async (request) => {
      admin(request);
      return { data: shown(await context.flows.replay(request.params.id)) };
    });
  };
}
