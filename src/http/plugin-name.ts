import type { FastifyPluginAsync, FastifyPluginCallback } from 'fastify';

const DISPLAY_NAME = Symbol.for('fastify.display-name');

/**
 * Names a route plugin for Fastify. Registering a plugin without a name makes Fastify look for the module that
 * exports it among every module in `require.cache` (`getPluginName`), on each registration of each app: a cost that
 * grows with the modules the process has loaded (about 20 ms an app in a test process).
 */
export function named<T extends FastifyPluginAsync<any> | FastifyPluginCallback<any>>(name: string, plugin: T): T {
  (plugin as unknown as Record<symbol, string>)[DISPLAY_NAME] = name;
  return plugin;
}
