/**
 * The system collections with items semantics (Directus docs: Users, roles and policies): `/users`, `/roles`, `/policies`, `/access`,
 * `/permissions` read like `/items/<collection>` over the service_* tables (same query language, same permission
 * rules), plus the `me` endpoints and the `/settings` singleton. Writes: system-writes.ts.
 */
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import { judgeRevisions, withJudgedFields } from '../../engine/read/revision-access.js';
import { ForbiddenError, InvalidCredentialsError } from '../../errors/catalogue.js';
import { parseQuery } from '../../request/parse-query.js';
import type { Query } from '../../request/query.js';
import type { ItemsApi } from '../../app/ports.js';
import type { MeService } from '../../auth/me-service.js';
import { sendData } from '../data-reply.js';
import { registerSystemWrites } from './system-writes.js';
import { sendExport } from './export-reply.js';
import { declareRoute, type RouteDeclaration } from '../route-declaration.js';
import { ANY_DATA, listOf } from './route-answers.js';
import { ME_WRITE_ROUTES } from './system-writes.js';

/** The caller's own records: its user, roles, global flags and what it may do. */
export const ME_ROUTES = {
  user: {
    method: 'GET',
    url: '/users/me',
    summary: 'The caller’s user',
    tags: ['Users'],
    audience: 'user',
    response: ANY_DATA,
  },
  roles: {
    method: 'GET',
    url: '/roles/me',
    summary: 'The caller’s roles',
    tags: ['Roles'],
    audience: 'user',
    response: listOf('The roles'),
  },
  globals: {
    method: 'GET',
    url: '/policies/me/globals',
    summary: 'The caller’s app, admin and two-factor flags',
    tags: ['Policies'],
    audience: 'anyone',
    response: ANY_DATA,
  },
  permissions: {
    method: 'GET',
    url: '/permissions/me',
    summary: 'What the caller may do, per collection and action',
    tags: ['Permissions'],
    audience: 'anyone',
    response: ANY_DATA,
  },
  itemPermissions: {
    method: 'GET',
    url: '/permissions/me/:collection/:key',
    summary: 'What the caller may do to one item: update, delete, share',
    tags: ['Permissions'],
    audience: 'user',
    response: ANY_DATA,
  },
  singletonPermissions: {
    method: 'GET',
    url: '/permissions/me/:collection',
    summary: 'What the caller may do to a singleton (or, for other collections, to their items at all)',
    tags: ['Permissions'],
    audience: 'user',
    response: ANY_DATA,
  },
  ...ME_WRITE_ROUTES,
} satisfies Record<string, RouteDeclaration>;

export const SYSTEM_ROUTES: Record<string, string> = {
  users: 'service_users',
  roles: 'service_roles',
  policies: 'service_policies',
  access: 'service_access',
  permissions: 'service_permissions',
  files: 'service_files',
  folders: 'service_folders',
  versions: 'service_versions',
  comments: 'service_comments',
  notifications: 'service_notifications',
  flows: 'service_flows',
  operations: 'service_operations',
  presets: 'service_presets',
};

/** Read-only system collections (the audit trail): GET only, as Directus serves them. */
export const READ_ONLY_SYSTEM_ROUTES: Record<string, string> = {
  activity: 'service_activity',
  revisions: 'service_revisions',
};

const AUDIT_ROUTES = {
  activity: {
    list: { summary: 'Activity: who created, updated, deleted what, and logins', tag: 'Activity' },
    one: { summary: 'One activity record', tag: 'Activity' },
  },
  revisions: {
    list: { summary: 'Revisions: items after each change, with the change', tag: 'Revisions' },
    one: { summary: 'One revision', tag: 'Revisions' },
  },
} as const;

function auditRoute(route: 'activity' | 'revisions', one: boolean): RouteDeclaration {
  const { summary, tag } = AUDIT_ROUTES[route][one ? 'one' : 'list'];
  return {
    method: 'GET',
    url: one ? `/${route}/:pk` : `/${route}`,
    summary,
    tags: [tag],
    audience: 'user',
    response: one ? ANY_DATA : listOf(`The ${route}`),
  };
}

/** GET /activity and /revisions (read-only); a non-admin's revisions judged item by item (revision-access.ts). */
function registerAuditReads(
  app: FastifyInstance,
  context: SystemCollectionRoutesDeps,
  query: (request: FastifyRequest) => Query,
): void {
  const system = { system: true };
  for (const [route, table] of Object.entries(READ_ONLY_SYSTEM_ROUTES)) {
    const judged = table === 'service_revisions';
    const name = route as 'activity' | 'revisions';
    declareRoute(app, auditRoute(name, false), async (request, reply) => {
      const asked = judged ? withJudgedFields(query(request)) : { query: query(request), added: [] };
      const read = await context.items.readMany(table, asked.query, request.accountability, request.timer, system);
      if (!judged) return sendData(reply, read);
      const schema = context.schema.current;
      return sendData(reply, await judgeRevisions(context.items, schema, read, request.accountability, asked.added));
    });
    declareRoute<{ Params: { pk: string } }>(app, auditRoute(name, true), async (request, reply) => {
      const asked = judged ? withJudgedFields(query(request)) : { query: query(request), added: [] };
      const { accountability, timer } = request;
      const read = await context.items.readOne(table, request.params.pk, asked.query, accountability, timer, system);
      if (!judged) return sendData(reply, read);
      const answer = await judgeRevisions(context.items, context.schema.current, read, accountability, asked.added);
      if (answer.json === 'null') throw new ForbiddenError();
      return sendData(reply, answer);
    });
  }
}

export interface SystemCollectionRoutesDeps extends ItemsApi {
  me: MeService;
}

export function systemCollectionRoutes(context: SystemCollectionRoutesDeps): FastifyPluginAsync {
  const parseOptions = {
    queryLimitMax: context.config.queryLimitMax,
    maxRelationalDepth: context.config.maxRelationalDepth,
    maxJsonQueryDepth: context.config.maxJsonQueryDepth,
  };
  const query = (request: FastifyRequest) => parseQuery(request.query as Record<string, unknown>, parseOptions);
  const system = { system: true };

  return async (app) => {
    declareRoute(app, ME_ROUTES.user, async (request, reply) => {
      const user = request.accountability.user;
      if (!user) throw new InvalidCredentialsError();
      return sendData(
        reply,
        await context.items.readOne(
          'service_users',
          user,
          query(request),
          request.accountability,
          request.timer,
          system,
        ),
      );
    });

    declareRoute(app, ME_ROUTES.roles, async (request, reply) => {
      const roles = request.accountability.roles;
      const scoped: Query = {
        ...query(request),
        filter: {
          type: 'condition',
          field: 'id',
          operator: '_in',
          value: roles.length ? roles : ['00000000-0000-0000-0000-000000000000'],
        },
      };
      return sendData(
        reply,
        await context.items.readMany('service_roles', scoped, request.accountability, request.timer, system),
      );
    });

    declareRoute(app, ME_ROUTES.globals, async (request) => ({
      data: await context.me.globals(request.accountability),
    }));
    declareRoute(app, ME_ROUTES.permissions, async (request) => ({
      data: await context.me.collectionAccess(request.accountability),
    }));
    const itemAccess = (request: FastifyRequest, collection: string, key?: string) => {
      // As Directus: only a signed-in user has item permissions to report.
      if (!request.accountability.user) throw new ForbiddenError();
      return context.writer.itemAccess(collection, key, request.accountability);
    };
    declareRoute<{ Params: { collection: string; key: string } }>(app, ME_ROUTES.itemPermissions, async (request) => ({
      data: await itemAccess(request, request.params.collection, request.params.key),
    }));
    declareRoute<{ Params: { collection: string } }>(app, ME_ROUTES.singletonPermissions, async (request) => ({
      data: await itemAccess(request, request.params.collection),
    }));

    app.get('/settings', async (request, reply) =>
      sendData(
        reply,
        await context.items.readMany('service_settings', query(request), request.accountability, request.timer, {
          system: true,
          singleton: true,
        }),
      ),
    );

    for (const [route, table] of Object.entries(SYSTEM_ROUTES)) {
      app.get(`/${route}`, async (request, reply) => {
        const format = (request.query as Record<string, unknown>).export;
        if (format !== undefined && format !== '')
          return sendExport(context, reply, table, query(request), format, request.accountability, system);
        return sendData(
          reply,
          await context.items.readMany(table, query(request), request.accountability, request.timer, system),
        );
      });
      app.get<{ Params: { pk: string } }>(`/${route}/:pk`, async (request, reply) =>
        sendData(
          reply,
          await context.items.readOne(
            table,
            request.params.pk,
            query(request),
            request.accountability,
            request.timer,
            system,
          ),
        ),
      );
    }
    registerAuditReads(app, context, query);

    registerSystemWrites(app, context, SYSTEM_ROUTES, parseOptions);
  };
}
