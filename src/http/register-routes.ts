/**
 * One plugin per resource, registered in a fixed order; the route table they fill (for the OpenAPI document); and the
 * one WebSocket server that /websocket and GraphQL's socket share.
 */
import websocket from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app/app-context.js';
import { compileBodySchemas } from '../request/body-check.js';
import { SpecsService } from '../specs/specs-service.js';
import type { RouteEntry } from '../specs/system-paths.js';
import type { AppOptions } from './app-options.js';
import { named } from './plugin-name.js';
import { adminAppRoutes, STUDIO_DIR } from './routes/admin-app.js';
import { authRoutes } from './routes/auth.js';
import { ldapLoginRoutes } from './routes/auth-ldap.js';
import { authProviderRoutes } from './routes/auth-providers.js';
import { collectionRoutes } from './routes/collections.js';
import { docsRoutes } from './routes/docs.js';
import { fieldRoutes } from './routes/fields.js';
import { fileRoutes } from './routes/files.js';
import { flowRoutes } from './routes/flows.js';
import { tusRoutes } from './routes/files-tus.js';
import { assetRoutes } from './routes/assets.js';
import { graphqlRoutes } from './routes/graphql.js';
import { importRoutes } from './routes/import.js';
import { itemRoutes } from './routes/items.js';
import { metricsRoutes } from './routes/metrics.js';
import { relationRoutes } from './routes/relations.js';
import { schemaRoutes } from './routes/schema.js';
import { serverRoutes } from './routes/server.js';
import { specsRoutes } from './routes/specs.js';
import { SYSTEM_ROUTES, systemCollectionRoutes } from './routes/system-collections.js';
import { userAccountRoutes } from './routes/user-accounts.js';
import { usersMeRoutes } from './routes/users-me.js';
import { utilsRoutes } from './routes/utils.js';
import { versionRoutes } from './routes/versions.js';
import { websocketRoutes } from './routes/websocket-upgrade.js';
import { boundConnections, closeWebSockets } from './upgrade-sockets.js';

/** The route table, for the OpenAPI document (every route there is, described or not), filled as routes are added. */
function collectRouteTable(app: FastifyInstance): RouteEntry[] {
  const routes: RouteEntry[] = [];
  app.addHook('onRoute', (route) => {
    if (route.config?.openapi === false) return;
    const declaration = route.config?.declaration;
    for (const method of [route.method].flat()) routes.push({ method, url: route.url, declaration });
  });
  app.decorate('routeTable', routes);
  return routes;
}

/** The OpenAPI documents, over the route table and the REST paths of the service_* tables. */
function specsService(context: AppContext, routes: RouteEntry[]): SpecsService {
  const systemPaths = Object.fromEntries([
    ...Object.entries(SYSTEM_ROUTES).map(([route, table]) => [table, `/${route}`]),
    ['service_settings', '/settings'],
  ]);
  return new SpecsService(context, routes, systemPaths);
}

export function registerRoutes(app: FastifyInstance, context: AppContext, options: AppOptions): void {
  const { config } = context;
  const specs = specsService(context, collectRouteTable(app));
  app.register(named('server', serverRoutes(context)));
  if (context.prometheus) app.register(named('metrics', metricsRoutes(context.prometheus, context)));
  app.register(
    named(
      'specs',
      specsRoutes(specs, () => context.schema.current),
    ),
  );
  if (config.docs.enabled) app.register(named('docs', docsRoutes(config.docs.publicUrl)));
  app.register(named('auth', authRoutes(context)));
  app.register(named('authProviders', authProviderRoutes(context)));
  app.register(named('authLdap', ldapLoginRoutes(context)));
  app.register(named('item', itemRoutes(context)), { prefix: '/items' });
  app.register(named('usersMe', usersMeRoutes(context)));
  app.register(named('userAccounts', userAccountRoutes(context)));
  app.register(named('systemCollection', systemCollectionRoutes(context)));
  app.register(named('flow', flowRoutes(context)));
  app.register(named('file', fileRoutes(context)));
  if (config.storage.tus.enabled) app.register(named('tus', tusRoutes(context)));
  app.register(named('asset', assetRoutes(context)));
  app.register(named('version', versionRoutes(context)));
  app.register(named('field', fieldRoutes(context)));
  app.register(named('collection', collectionRoutes(context)));
  app.register(named('relation', relationRoutes(context)));
  app.register(named('utils', utilsRoutes(context)));
  app.register(named('import', importRoutes(context)), { prefix: '/utils' });
  app.register(named('schema', schemaRoutes(context)));
  // One WebSocket server for /websocket and GraphQL's socket (registered once, before the routes that upgrade).
  const sockets = config.websockets.enabled || config.graphqlSockets.enabled;
  boundConnections(app, sockets, config.shutdownTimeoutMs);
  if (sockets)
    app.register(websocket, {
      options: { maxPayload: config.websockets.limits.maxMessageBytes * 2 },
      preClose: closeWebSockets,
    });
  app.register(named('graphql', graphqlRoutes(context, specs, options.warm !== false)));
  if (config.websockets.enabled) app.register(named('websocket', websocketRoutes(context, config.ip.customHeader)));
  if (config.adminApp) app.register(named('adminApp', adminAppRoutes(options.adminAppDir ?? STUDIO_DIR)));
  if (options.warm !== false) compileBodySchemas();
}
