/**
 * Hits and misses of every Cache of this process, by cache name: two numbers per name, counted always (an increment
 * of a typed array's slot costs next to nothing) and read only when /metrics is scraped. Process-wide because many
 * caches are made outside any registry (per connection, per document); a process serves one app.
 */
import { CACHE_NAMES, type CacheName } from './names.js';

const HITS = new Float64Array(CACHE_NAMES.length);
const MISSES = new Float64Array(CACHE_NAMES.length);

/** The slot of a cache name in the counts. */
export function countSlot(name: CacheName): number {
  return CACHE_NAMES.indexOf(name);
}

export function countHit(slot: number): void {
  HITS[slot]! += 1;
}

export function countMiss(slot: number): void {
  MISSES[slot]! += 1;
}

export interface CacheCount {
  name: CacheName;
  hits: number;
  misses: number;
}

/** The counts so far, per cache name. */
export function cacheCounts(): CacheCount[] {
  return CACHE_NAMES.map((name, i) => ({ name, hits: HITS[i]!, misses: MISSES[i]! }));
}
