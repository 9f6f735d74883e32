/**
 * What the rest of Strata tells the metrics, whether or not they are on: `NO_METRICS` (METRICS_ENABLED false) does
 * nothing, so a caller never checks the setting. Figures Strata keeps anyway (cache counts, pool use, the hub's
 * subscriptions) are read at scrape time instead and need no call (docs/design/metrics.md).
 */

/** The outbox's backlog now (events written and not yet delivered); read at each scrape. */
export type BacklogReader = () => number | Promise<number>;

export interface Metrics {
  /**
   * A lookup answered from a cache that is not a `Cache` of cache/cache.ts (those count themselves), under
   * `strata_cache_hits_total{cache="<name>"}`. `name` must be a fixed word (a cache's name), never a request's value.
   */
  cacheHit(name: string, count?: number): void;
  /** A lookup such a cache could not answer (`strata_cache_misses_total`). */
  cacheMiss(name: string, count?: number): void;
  /** Registers the outbox's backlog (`strata_outbox_backlog{outbox="<name>"}`); the last reader of a name wins. */
  outboxBacklog(name: string, read: BacklogReader): void;
  /** A worker process replaced after it died (`strata_worker_restarts_total`). */
  workerRestarted(count?: number): void;
}

const nothing = (): void => {};

export const NO_METRICS: Metrics = Object.freeze({
  cacheHit: nothing,
  cacheMiss: nothing,
  outboxBacklog: nothing,
  workerRestarted: nothing,
});
