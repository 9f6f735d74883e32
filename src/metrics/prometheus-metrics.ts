/**
 * The metrics of one running Strata when METRICS_ENABLED: a prom-client registry of its own (not the library's
 * global one, so that several apps in one process never collide), filled with the groups METRICS_SERVICES names.
 * Everything Strata keeps anyway (pool use, cache counts, sockets, subscriptions, the outbox's backlog) is read when
 * /metrics is scraped; only request and statement durations are observed as they happen. Each instance (and each
 * worker) serves its own figures: Prometheus scrapes every one and sums (docs/metrics.md).
 */
import cluster from 'node:cluster';
import type { FastifyInstance } from 'fastify';
import { clusterScrape } from '../workers/cluster-metrics.js';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { cacheCounts } from '../cache/cache-counts.js';
import type { MetricsConfig } from '../config/metrics-config.js';
import type { Database } from '../db/connection.js';
import type { SubscriptionHub } from '../realtime/hub/subscription-hub.js';
import { databaseMetrics } from './database-metrics.js';
import { httpMetrics } from './http-metrics.js';
import type { BacklogReader, Metrics } from './metrics.js';
import { ScrapeTokens } from './scrape-access.js';

export class PrometheusMetrics implements Metrics {
  readonly registry = new Registry();
  readonly tokens: ScrapeTokens;
  private readonly hits = new Map<string, number>();
  private readonly misses = new Map<string, number>();
  private readonly backlogs = new Map<string, BacklogReader>();
  private readonly restarts: Counter | null;
  private db: Database | null = null;

  constructor(private readonly config: MetricsConfig) {
    this.tokens = new ScrapeTokens(config.tokens);
    // Workers of one instance (WORKERS > 1): a scrape answers for all of them, summed by the primary.
    if (cluster.isWorker) this.render = clusterScrape(this.registry);
    const on = config.services;
    if (on.has('process')) collectDefaultMetrics({ register: this.registry });
    if (on.has('cache')) this.cacheCounters();
    if (on.has('outbox')) this.outboxGauge();
    this.restarts = on.has('workers')
      ? new Counter({
          name: 'strata_worker_restarts_total',
          help: 'Worker processes replaced after they died',
          registers: [this.registry],
          // Every worker reports the primary's one count: summing them would multiply it.
          aggregator: 'max',
        })
      : null;
  }

  /** Starts observing the database's statements and acquires, and reading its pools at scrape time. */
  watchDatabase(db: Database): void {
    if (!this.config.services.has('database')) return;
    this.db = db;
    db.observe(databaseMetrics(this.registry, db));
  }

  /** Reads the realtime hub's subscriptions at scrape time. */
  watchRealtime(hub: SubscriptionHub): void {
    if (this.config.services.has('realtime')) this.subscriptionGauges(hub);
  }

  /** Adds the HTTP hook and the sockets gauge to `app` (before its routes are registered). */
  watchHttp(app: FastifyInstance): void {
    if (this.config.services.has('http')) httpMetrics(app, this.registry);
    if (this.config.services.has('realtime'))
      new Gauge({
        name: 'strata_realtime_sockets',
        help: 'Open WebSocket connections (/websocket and GraphQL subscriptions)',
        registers: [this.registry],
        collect() {
          // The shared WebSocket server exists only when WEBSOCKETS_ENABLED or WEBSOCKETS_GRAPHQL_ENABLED.
          this.set(app.hasDecorator('websocketServer') ? app.websocketServer.clients.size : 0);
        },
      });
  }

  /** The exposition text of every figure now. */
  text(): Promise<string> {
    return this.render();
  }

  private render: () => Promise<string> = () => this.registry.metrics();

  get contentType(): string {
    return this.registry.contentType;
  }

  cacheHit(name: string, count = 1): void {
    this.hits.set(name, (this.hits.get(name) ?? 0) + count);
  }

  cacheMiss(name: string, count = 1): void {
    this.misses.set(name, (this.misses.get(name) ?? 0) + count);
  }

  outboxBacklog(name: string, read: BacklogReader): void {
    this.backlogs.set(name, read);
  }

  workerRestarted(count = 1): void {
    this.restarts?.inc(count);
  }

  close(): void {
    this.db?.observe(null);
    this.registry.clear();
  }

  private cacheCounters(): void {
    const counter = (name: string, help: string, own: 'hits' | 'misses', reported: Map<string, number>) =>
      new Counter({
        name,
        help,
        labelNames: ['cache'],
        registers: [this.registry],
        collect() {
          this.reset();
          for (const count of cacheCounts()) this.inc({ cache: count.name }, count[own]);
          for (const [cache, value] of reported) this.inc({ cache }, value);
        },
      });
    counter('strata_cache_hits_total', 'Lookups answered from a cache, by cache', 'hits', this.hits);
    counter(
      'strata_cache_misses_total',
      'Entries a cache had to make (loaded or computed), by cache',
      'misses',
      this.misses,
    );
  }

  private outboxGauge(): void {
    const backlogs = this.backlogs;
    new Gauge({
      name: 'strata_outbox_backlog',
      help: 'Events in the outbox not delivered yet, by outbox',
      labelNames: ['outbox'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const [outbox, read] of backlogs) {
          // A backlog that cannot be read now is left out of this scrape rather than failing all of it.
          const value = await Promise.resolve()
            .then(read)
            .catch(() => null);
          if (typeof value === 'number' && Number.isFinite(value)) this.set({ outbox }, value);
        }
      },
    });
  }

  private subscriptionGauges(hub: SubscriptionHub): void {
    new Gauge({
      name: 'strata_realtime_subscriptions',
      help: 'Realtime subscriptions (both protocols) of this instance',
      registers: [this.registry],
      collect() {
        this.set(hub.stats().subscriptions);
      },
    });
    new Gauge({
      name: 'strata_realtime_subscription_groups',
      help: 'Groups of identical subscriptions, each read once per event',
      registers: [this.registry],
      collect() {
        this.set(hub.stats().groups);
      },
    });
  }
}
