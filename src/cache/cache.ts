/**
 * The one cache type of Strata (docs/design/caches-and-the-bus.md): an lru-cache bounded in entries or in size,
 * with an optional time to live, that a clear can never be undone by a lookup already on its way. Each cache counts
 * its clears (its generation); `load` notes the generation it started in and stores its result only if no clear
 * came meanwhile: the lookup answers the caller that asked, and the next one looks up again. Loads of one key in
 * one generation share one promise. Hits are synchronous (`get`), so a hot path costs one map lookup.
 * Counts (cache-counts.ts, for /metrics): a hit is a lookup answered from the cache; a miss is an entry that had to be
 * made (a load or computation started, or a value set), so that a `get` followed by a `load` counts one miss.
 */
import { LRUCache } from 'lru-cache';
import { countHit, countMiss, countSlot } from './cache-counts.js';
import type { CacheName } from './names.js';

export interface CacheOptions<K, V> {
  /** Entries kept at most (least recently used out first). */
  max?: number;
  /** Or: the total of `sizeOf` kept at most; an entry larger than the whole is not kept. */
  maxSize?: number;
  sizeOf?: (value: V, key: K) => number;
  /** How long an entry serves, from when its lookup started (the rows are as old as the read). */
  ttlMs?: number;
  /** What `ttlMs` is measured against (a test's clock); Date.now by default. */
  now?: () => number;
}

/** An entry of a cache with a time to live. */
interface Aged<V> {
  value: V;
  at: number;
}

interface Loading<V> {
  generation: number;
  promise: Promise<V>;
}

export class Cache<K extends {}, V> {
  private readonly entries: LRUCache<K, {}>;
  private readonly ttlMs: number | null;
  private readonly now: () => number;
  /** Moves on at every clear or delete: a load that started before it does not store. */
  private clears = 0;
  private loading: Map<K, Loading<V>> | null = null;
  private readonly slot: number;

  constructor(
    readonly name: CacheName,
    options: CacheOptions<K, V>,
  ) {
    this.slot = countSlot(name);
    this.ttlMs = options.ttlMs ?? null;
    this.now = options.now ?? Date.now;
    const sizeOf = options.sizeOf;
    this.entries = new LRUCache<K, {}>(
      options.maxSize !== undefined
        ? {
            ...(options.max !== undefined ? { max: options.max } : {}),
            maxSize: options.maxSize,
            sizeCalculation: (stored, key) => Math.max(1, sizeOf ? sizeOf(this.unwrap(stored), key) : 1),
          }
        : { max: options.max ?? 1_000 },
    );
  }

  /** The generation: how many clears (and deletes) this cache has seen. */
  get generation(): number {
    return this.clears;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The entry, when there is one and it is fresh; undefined otherwise. Never waits. */
  get(key: K): V | undefined {
    const value = this.fresh(key);
    if (value !== undefined) countHit(this.slot);
    return value;
  }

  private fresh(key: K): V | undefined {
    const stored = this.entries.get(key);
    if (stored === undefined) return undefined;
    if (this.ttlMs === null) return stored as V;
    const aged = stored as Aged<V>;
    if (this.now() - aged.at >= this.ttlMs) return undefined;
    return aged.value;
  }

  /**
   * The entry, or the result of `loader` (shared with any load of the key already on its way in this generation).
   * The result is stored only if the cache was not cleared while it loaded; a failed load stores nothing.
   */
  load(key: K, loader: () => Promise<V>): Promise<V> {
    const hit = this.get(key);
    if (hit !== undefined) return Promise.resolve(hit);
    const generation = this.clears;
    const loading = (this.loading ??= new Map());
    const shared = loading.get(key);
    if (shared && shared.generation === generation) {
      countHit(this.slot);
      return shared.promise;
    }
    countMiss(this.slot);
    const started = this.now();
    const promise = loader().then((value) => {
      if (generation === this.clears) this.store(key, value, started);
      return value;
    });
    const entry = { generation, promise };
    loading.set(key, entry);
    const settle = () => {
      if (loading.get(key) === entry) loading.delete(key);
    };
    promise.then(settle, settle);
    return promise;
  }

  /** The entry, or `make()`'s result, stored (a synchronous computation: no clear can come while it runs). */
  compute(key: K, make: () => V): V {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    countMiss(this.slot);
    const value = make();
    this.store(key, value, this.now());
    return value;
  }

  /** Stores a value computed synchronously from what the caller holds now. */
  set(key: K, value: V): void {
    countMiss(this.slot);
    this.store(key, value, this.now());
  }

  /** Drops one entry; loads on their way (of any key) do not store. */
  delete(key: K): void {
    this.clears += 1;
    this.entries.delete(key);
  }

  /** Drops every entry; loads on their way do not store. */
  clear(): void {
    this.clears += 1;
    this.entries.clear();
  }

  private store(key: K, value: V, at: number): void {
    if (value === undefined) return;
    this.entries.set(key, (this.ttlMs === null ? value : { value, at }) as {});
  }

  private unwrap(stored: {}): V {
    return this.ttlMs === null ? (stored as V) : (stored as Aged<V>).value;
  }
}
