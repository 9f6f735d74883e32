/**
 * Everything a running Strata holds: the connection, the schema store and the services over them. Built once at
 * start (and by tests) from the steps in this folder, in order; each front end takes only the part it uses
 * (ports.ts, or an interface next to it), and this object satisfies them all.
 */
import type { AuditRetention } from '../project/audit-retention.js';
import type { Scheduler } from '../engine/events/scheduler.js';
import { systemClock, type Clock } from '../config/clock.js';
import type { Config } from '../config/config.js';
import { Database } from '../db/connection.js';
import type { AccountabilityResolver } from '../auth/accountability-resolver.js';
import type { AuthService } from '../auth/auth-service.js';
import { LoginAttempts } from '../auth/login-attempts.js';
import type { MeService } from '../auth/me-service.js';
import type { TfaService } from '../auth/tfa-service.js';
import type { MessageBus } from '../bus/message-bus.js';
import type { RelayTransport } from '../bus/relay-bus.js';
import { CacheRegistry } from '../cache/cache-registry.js';
import { Invalidation } from '../cache/invalidation.js';
import type { ItemsService } from '../engine/read/items-service.js';
import type { ChangeEvents } from '../engine/write/change-events.js';
import type { EventEmitter } from '../engine/events/event-emitter.js';
import type { ItemsWriter } from '../engine/write/items-writer.js';
import type { VersionsService } from '../engine/versions/versions-service.js';
import type { AccessResolver } from '../permissions/access-resolver.js';
import type { PermissionStore } from '../permissions/permission-store.js';
import type { SettingsService } from '../project/settings-service.js';
import { SubscriptionHub } from '../realtime/hub/subscription-hub.js';
import type { RightsNotices } from '../realtime/rights-notices.js';
import type { CollectionsService } from '../schema-admin/collections-service.js';
import type { FieldsService } from '../schema-admin/fields-service.js';
import type { RelationsService } from '../schema-admin/relations-service.js';
import type { SchemaChanges } from '../schema-admin/schema-changes.js';
import type { SchemaStore } from '../schema/schema-store.js';
import { createRateLimiters, type RateLimiters } from '../bus/rate-limiters.js';
import type { RedisClient } from '../bus/redis-connection.js';
import { buildAccounts, buildCallers } from './build-accounts.js';
import { buildMailAccounts, type MailAccounts } from './build-mail-accounts.js';
import { buildEngine, loadSchema } from './build-engine.js';
import { buildSchemaAdmin } from './build-schema-admin.js';
import { reactToChanges } from './change-reactions.js';
import { connectBus, openRedis } from './connect-bus.js';
import { buildResponseCache } from './build-response-cache.js';
import type { ResponseCache } from '../cache/response-cache.js';
import { openDatabase } from './open-database.js';
import type { FilesService } from '../engine/files/files-service.js';
import type { AssetService } from '../engine/files/asset-service.js';
import type { StorageLocations } from '../storage/storage-locations.js';
import type { StartLog } from './start-log.js';
import type { SignOnService } from '../auth/providers/sign-on-service.js';
import type { FlowsService } from '../flows/flows-service.js';
import { startBackground } from './build-background.js';
import { NO_METRICS, type Metrics } from '../metrics/metrics.js';
import { PrometheusMetrics } from '../metrics/prometheus-metrics.js';

export interface AppContext extends MailAccounts {
  config: Config;
  db: Database;
  /** With read replicas: runs a request's work as its caller (read-your-writes; see CallerApi.asCaller). */
  asCaller?: (caller: string, work: () => void) => void;
  schema: SchemaStore;
  items: ItemsService;
  writer: ItemsWriter;
  /** Content versions beyond their rows: save, read as of, compare, promote. */
  versions: VersionsService;
  /** Schema management (fields, collections, relations), serialised through `schemaChanges`. */
  schemaChanges: SchemaChanges;
  fields: FieldsService;
  collections: CollectionsService;
  relations: RelationsService;
  settings: SettingsService;
  auth: AuthService;
  tfa: TfaService;
  me: MeService;
  /** Single sign-on through the AUTH_PROVIDERS. */
  signOn: SignOnService;
  accountability: AccountabilityResolver;
  /** Permission rows per policy set (cached; GraphQL builds its schemas from them). */
  permissions: PermissionStore;
  /** The caller's read and write access per request (permission sets, variables, rules). */
  access: AccessResolver;
  /** Shared with other instances when Redis is configured; local otherwise. */
  bus: MessageBus;
  /** The caches a change clears, by name (cache/invalidation.ts clears them, here and on notice from elsewhere). */
  caches: CacheRegistry;
  /** Changes made here: clears their caches at once and tells the other instances. */
  invalidation: Invalidation;
  /** Answers from memory (CACHE_ENABLED): null when off. */
  responses: ResponseCache | null;
  /** What every committed item write changed: here, and (with Redis) on every instance. */
  changes: ChangeEvents;
  /** Hook events (filter, action, init) of extensions and flows. */
  events: EventEmitter;
  /** The storage locations that hold the files' bytes. */
  storage: StorageLocations;
  /** File uploads, replacements and deletes (bytes and rows together). */
  files: FilesService;
  /** What /assets serves: originals and image variants. */
  assets: AssetService;
  /** Realtime subscriptions of this instance, re-read once per group of alike subscribers per event. */
  subscriptions: SubscriptionHub;
  /** Tells live sockets and the hub at once when rights change or a login ends (rights-notices.ts). */
  rights: RightsNotices;
  redis: RedisClient | null;
  rateLimiters: RateLimiters;
  /** Failed logins per user toward `auth_login_attempts` (auth/login-attempts.ts). */
  loginAttempts: LoginAttempts;
  /** What token expiry is measured against (a test's TestClock; the system clock otherwise). */
  clock: Clock;
  /** Reload the schema overview after a change made here, and tell the other instances. */
  schemaChanged(): Promise<void>;
  /** Drop cached accountabilities and permissions here, and tell the other instances. */
  permissionsChanged(): Promise<void>;
  /** POST /utils/cache/clear: every cache (schema overview, GraphQL schemas, permissions, users, settings) here and on every instance. */
  clearCaches(): Promise<void>;
  /** Prunes old activity and revisions on RETENTION_SCHEDULE when RETENTION_ENABLED (project/audit-retention.ts). */
  retention: AuditRetention;
  /** Flows: their runs, triggers and the outbox's deliveries (flows/flows-service.ts). */
  flows: FlowsService;
  /** Cron schedules of extensions and flows, each tick run once across instances. */
  scheduler: Scheduler;
  /**
   * What callers tell the metrics (cache hits of caches of their own, the outbox's backlog, worker restarts):
   * does nothing when METRICS_ENABLED is false.
   */
  metrics: Metrics;
  /** The metrics /metrics serves, when METRICS_ENABLED (null otherwise: no route, no hook, nothing observed). */
  prometheus: PrometheusMetrics | null;
  startedAt: number;
  close(): Promise<void>;
}

export interface ContextOptions {
  /** Run bootstrap (migrations; first admin on a fresh database) before serving. */
  bootstrap?: boolean;
  log?: StartLog;
  /** What expiry (tokens, sessions, TFA windows) is measured against; the system clock unless a test injects one. */
  clock?: Clock;
  /**
   * This context is one worker of several, joined to its siblings through this relay (a cluster worker finds its own,
   * the IPC channel to its primary; the tests' pair mode passes an in-process one).
   */
  relay?: RelayTransport;
  /**
   * The counts this worker shares with its siblings (rate limits, failed logins). A cluster worker needs none: it
   * counts in its primary (RateLimiterCluster). The tests' pair mode, whose workers share a process and no primary,
   * passes its first worker's, so that the two count in one place as a cluster's do.
   */
  counts?: SharedCounts;
}

/** What the workers of one instance count together. */
export type SharedCounts = Pick<AppContext, 'rateLimiters' | 'loginAttempts'>;

/** The realtime subscriptions of this instance, over the read engine and the change events. */
function subscriptionHub(
  config: Config,
  schema: SchemaStore,
  engine: ReturnType<typeof buildEngine>,
  log: StartLog,
): SubscriptionHub {
  return new SubscriptionHub({
    items: engine.items,
    schema: () => schema.current,
    access: engine.access,
    changes: engine.changes,
    shownMax: config.realtime.shownKeysMax,
    limits: config.websockets.subscriptionLimits,
    workers: config.workers,
    log,
  });
}

/** The counts of this process (or, in a cluster worker, of its primary: bus/rate-limiters.ts). */
function sharedCounts(config: Config, redis: RedisClient | null): SharedCounts {
  const namespace = config.redis?.namespace ?? 'strata';
  return {
    rateLimiters: createRateLimiters(config.rateLimiter, redis, namespace),
    loginAttempts: new LoginAttempts(config.rateLimiter.store === 'redis' ? redis : null, namespace),
  };
}

/** Opens the database, builds the engine and the services over it, connects the bus; closes what it opened on failure. */
export async function createAppContext(config: Config, options: ContextOptions = {}): Promise<AppContext> {
  const log = options.log ?? { info: () => {}, warn: () => {} };
  const db = new Database(config.db);
  const prometheus = config.metrics.enabled ? new PrometheusMetrics(config.metrics) : null;
  prometheus?.watchDatabase(db);
  let redis: RedisClient | null = null;
  try {
    const { secret, undone } = await openDatabase(db, config, log, options.bootstrap === true);
    const caches = new CacheRegistry();
    const invalidation = new Invalidation(caches);
    const schema = await loadSchema(db, invalidation);
    const engine = buildEngine(db, config, schema, caches, invalidation, log);
    const { items, changes, permissions, permissionsChanged } = engine;
    const clock = options.clock ?? systemClock;
    const { logins, accountability } = buildCallers(db, secret, config, clock, caches);
    redis = await openRedis(config, log);
    const bus = await connectBus(config, db, redis, log, options.relay);
    const rights = await reactToChanges({ schema, invalidation, logins, changes, bus, undone, log });

    // The overview reloads here as the other instances reload theirs: its new version retires what was built on it.
    const clearCaches = async () => {
      const told = invalidation.changed('caches');
      await schema.load();
      await told;
    };
    const schemaAdmin = buildSchemaAdmin({ db, schema, bus, invalidation, permissions, permissionsChanged, log });
    const subscriptions = subscriptionHub(config, schema, engine, log);
    rights.listen(() => subscriptions.rightsChanged());
    prometheus?.watchRealtime(subscriptions);
    const openRedisClient = redis;
    const { rateLimiters, loginAttempts } = options.counts ?? sharedCounts(config, redis);
    const accounts = buildAccounts({
      db,
      secret,
      config,
      rateLimiters,
      loginAttempts,
      logins,
      clock,
      changes,
      events: engine.events,
      permissions,
      schema,
      writer: engine.writer,
      warn: (message) => log.warn(message),
    });
    const mailAccounts = buildMailAccounts({ ...engine, db, config, redis, logins, clock, log });
    const background = await startBackground({ ...mailAccounts, config, db, engine, schema, invalidation, clock, log });
    return {
      config,
      db,
      schema,
      ...engine,
      ...schemaAdmin,
      ...accounts,
      ...mailAccounts,
      accountability,
      bus,
      caches,
      invalidation,
      metrics: prometheus ?? NO_METRICS,
      prometheus,
      responses: await buildResponseCache({ config, redis, bus, engine, invalidation, schema, clock, log }),
      subscriptions,
      rights,
      redis,
      rateLimiters,
      loginAttempts,
      clock,
      clearCaches,
      retention: background.retention,
      flows: background.flows,
      scheduler: background.scheduler,
      startedAt: Date.now(),
      async close() {
        await background.stop();
        mailAccounts.mailer.close();
        subscriptions.close();
        await bus.close();
        if (openRedisClient) await openRedisClient.close().catch(() => {});
        engine.storage.close();
        await db.close();
        prometheus?.close();
      },
    };
  } catch (error) {
    prometheus?.close();
    await db.close().catch(() => {});
    if (redis) await redis.close().catch(() => {});
    throw error;
  }
}
