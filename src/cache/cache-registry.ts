/**
 * The caches of one running Strata that a change clears, by name: invalidation.ts clears them through this, and
 * nothing else does. A service built without one (a test's) gets a registry of its own.
 */
import { Cache, type CacheOptions } from './cache.js';
import type { CacheName } from './names.js';

export class CacheRegistry {
  private readonly caches = new Map<CacheName, Cache<{}, unknown>[]>();

  create<K extends {}, V>(name: CacheName, options: CacheOptions<K, V>): Cache<K, V> {
    const cache = new Cache<K, V>(name, options);
    this.caches.set(name, [...(this.caches.get(name) ?? []), cache as unknown as Cache<{}, unknown>]);
    return cache;
  }

  /** The names of the caches registered here. */
  names(): CacheName[] {
    return [...this.caches.keys()];
  }

  /** Clears the caches of `name`, or only their entry `key`. */
  clear(name: CacheName, key?: unknown): void {
    for (const cache of this.caches.get(name) ?? []) {
      if (key === undefined) cache.clear();
      else cache.delete(key as {});
    }
  }
}
