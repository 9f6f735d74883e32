/**
 * Loads the extensions of EXTENSIONS_PATH (extension-manifest.ts) and keeps what they registered: hooks' handlers
 * and schedules, endpoints' Express apps by id. A module that fails to load (a syntax error, a throw at load, a
 * top-level await that outlives EXTENSIONS_LOAD_TIMEOUT) or whose register function throws is logged and skipped;
 * the others load. With EXTENSIONS_AUTO_RELOAD a change under the path reloads them all (debounced): what the old
 * ones registered is removed first, and modules are imported afresh (a query on their URL; files they import
 * themselves stay cached: build extensions as one file, as the Directus SDK does). While extensions are loaded, an
 * unhandled promise rejection is logged instead of ending the process.
 */
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type express from 'express';
import type { AppContext } from '../app/app-context.js';
import { endpointApp, validEndpointId, type EndpointHandler } from './endpoint-bridge.js';
import { extensionContext, type LogSink } from './extension-context.js';
import { scanExtensions, type ExtensionManifest } from './extension-manifest.js';
import { registerHook, type Disposer } from './hook-registration.js';
import { registerSdkResolution } from './sdk-resolution.js';

export interface LoadedExtension {
  name: string;
  type: string;
  /** Endpoint ids it mounted. */
  endpoints: string[];
}

const RELOAD_DEBOUNCE_MS = 200;

export class Extensions {
  private endpoints = new Map<string, express.Express>();
  private disposers: Disposer[] = [];
  private generation = 0;
  private watcher: FSWatcher | null = null;
  private debounce: NodeJS.Timeout | null = null;
  private reloading: Promise<void> = Promise.resolve();
  private rejectionHandler: ((reason: unknown) => void) | null = null;
  loaded: LoadedExtension[] = [];
  failed: { name: string; error: string }[] = [];

  constructor(
    private readonly context: AppContext,
    private readonly log?: LogSink,
    /** `server: false` (the CLI): hooks' filters and actions only; no schedules, no watcher. */
    private readonly options: { server: boolean } = { server: true },
  ) {}

  private get root(): string {
    return path.resolve(this.context.config.extensions.path);
  }

  /** The first load, the init events, and the watcher when EXTENSIONS_AUTO_RELOAD. */
  async start(): Promise<void> {
    await this.load();
    await this.context.events.emitInit('app.before');
    await this.context.events.emitInit('app.after');
    if (this.context.config.extensions.autoReload && this.options.server) this.watch();
  }

  /** The Express app serving `/{id}`, if an endpoint extension mounted one. */
  endpoint(id: string): express.Express | undefined {
    return this.endpoints.get(id);
  }

  /** Removes everything the extensions registered and loads them again (waits for a reload under way). */
  reload(): Promise<void> {
    this.reloading = this.reloading.then(() => this.load()).catch(() => {});
    return this.reloading;
  }

  async close(): Promise<void> {
    this.watcher?.close();
    this.watcher = null;
    if (this.debounce) clearTimeout(this.debounce);
    await this.reloading;
    this.unload();
    if (this.rejectionHandler) process.removeListener('unhandledRejection', this.rejectionHandler);
    this.rejectionHandler = null;
  }

  private unload(): void {
    this.disposers.forEach((dispose) => dispose());
    this.disposers = [];
    this.endpoints = new Map();
    this.loaded = [];
    this.failed = [];
  }

  private async load(): Promise<void> {
    this.unload();
    const { found, skipped } = await scanExtensions(this.root);
    for (const skip of skipped) this.log?.warn(`Extension folder "${skip.folder}" skipped: ${skip.reason}`);
    if (found.length === 0) return;
    registerSdkResolution();
    this.catchRejections();
    this.generation++;
    const endpoints = new Map<string, express.Express>();
    for (const manifest of found) {
      try {
        const loaded = await this.loadOne(manifest, endpoints);
        this.loaded.push(loaded);
        this.log?.info(`Extension "${manifest.name}" (${manifest.type}) loaded`);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        this.failed.push({ name: manifest.name, error: message });
        this.log?.warn(`Extension "${manifest.name}" skipped: ${message}`);
      }
    }
    this.endpoints = endpoints;
  }

  private async loadOne(
    manifest: ExtensionManifest,
    endpoints: Map<string, express.Express>,
  ): Promise<LoadedExtension> {
    const mod = await this.importBounded(manifest.entry);
    const loaded: LoadedExtension = { name: manifest.name, type: manifest.type, endpoints: [] };
    const ctx = extensionContext(this.context, manifest.name, this.log);
    const disposers: Disposer[] = [];
    const addEndpoint = (fallbackId: string, config: unknown) => {
      const { id, handler } = endpointOf(config, fallbackId);
      if (endpoints.has(id)) throw new Error(`endpoint id "${id}" is taken by another extension`);
      endpoints.set(id, endpointApp(id, handler, ctx));
      loaded.endpoints.push(id);
    };
    try {
      if (manifest.type === 'hook')
        disposers.push(...registerHook(this.context, manifest.name, hookOf(mod.default), ctx, this.options.server));
      else if (manifest.type === 'endpoint') addEndpoint(endpointIdOf(manifest.name), mod.default);
      else {
        for (const entry of listOf(mod.hooks))
          disposers.push(
            ...registerHook(
              this.context,
              `${manifest.name}/${entry.name}`,
              hookOf(entry.config),
              ctx,
              this.options.server,
            ),
          );
        for (const entry of listOf(mod.endpoints)) addEndpoint(entry.name, entry.config);
      }
    } catch (error) {
      disposers.forEach((dispose) => dispose());
      for (const id of loaded.endpoints) endpoints.delete(id);
      throw error;
    }
    this.disposers.push(...disposers);
    return loaded;
  }

  private async importBounded(entry: string): Promise<Record<string, unknown>> {
    const ms = this.context.config.extensions.loadTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`its module did not finish loading within ${ms}ms`)), ms);
      timer.unref();
    });
    const loading = import(`${pathToFileURL(entry).href}?v=${this.generation}`) as Promise<Record<string, unknown>>;
    loading.catch(() => {});
    try {
      return await Promise.race([loading, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private catchRejections(): void {
    if (this.rejectionHandler) return;
    this.rejectionHandler = (reason: unknown) =>
      this.log?.warn(`Unhandled promise rejection: ${reason instanceof Error ? reason.message : String(reason)}`);
    process.on('unhandledRejection', this.rejectionHandler);
  }

  private watch(): void {
    try {
      this.watcher = watch(this.root, { recursive: true }, () => {
        if (this.debounce) clearTimeout(this.debounce);
        this.debounce = setTimeout(() => {
          this.debounce = null;
          void this.reload().then(() => this.log?.info('Extensions reloaded'));
        }, RELOAD_DEBOUNCE_MS);
        this.debounce.unref();
      });
      this.watcher.unref();
      this.watcher.on('error', () => {});
    } catch (error) {
      this.log?.warn(`Extensions are not watched: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

type HookFn = Parameters<typeof registerHook>[2];

function hookOf(value: unknown): HookFn {
  const fn = value && typeof value === 'object' && 'handler' in value ? (value as { handler: unknown }).handler : value;
  if (typeof fn !== 'function') throw new Error('its default export is not a hook function (defineHook(...))');
  return fn as HookFn;
}

/** Directus mounts an endpoint at its package name without the `directus-extension-` prefix (scope dropped). */
function endpointIdOf(name: string): string {
  return name.replace(/^@[^/]+\//, '').replace(/^directus-extension-/, '');
}

function endpointOf(config: unknown, fallbackId: string): { id: string; handler: EndpointHandler } {
  const object = config && typeof config === 'object' ? (config as { id?: unknown; handler?: unknown }) : null;
  const handler = object ? object.handler : config;
  const id = object?.id ?? fallbackId;
  if (typeof handler !== 'function') throw new Error('its default export is not an endpoint (defineEndpoint(...))');
  if (!validEndpointId(id)) throw new Error(`endpoint id "${String(id)}" is not a path segment (a-z, 0-9, _ and -)`);
  return { id, handler: handler as EndpointHandler };
}

function listOf(value: unknown): { name: string; config: unknown }[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (entry): entry is { name: string; config: unknown } =>
      !!entry && typeof entry === 'object' && typeof (entry as { name?: unknown }).name === 'string',
  );
}
