/**
 * Everything a running Strata holds: the connection, the schema store and the services over them. Built once at
 * start (and by tests); the HTTP front end only talks to this.
 */
import { hashPassword } from '../auth/passwords.js';
import { systemClock, type Clock } from '../config/clock.js';
import type { Config } from '../config/config.js';
import { resolveSecret } from '../config/secret-store.js';
import { Database } from '../db/connection.js';
import { waitForDatabase } from '../db/wait-for-database.js';
import { AccountabilityResolver } from '../auth/accountability-resolver.js';
import { LoginLiveness } from '../auth/login-liveness.js';
import { Sessions } from '../auth/sessions.js';
import { SchemaStore } from '../schema/schema-store.js';
import { AuthService } from '../auth/auth-service.js';
import { bootstrap } from './bootstrap.js';
import { CollectionsService } from '../schema-admin/collections-service.js';
import { FieldsService } from '../schema-admin/fields-service.js';
import { ItemsService } from '../engine/read/items-service.js';
import { ItemsWriter } from '../engine/write/items-writer.js';
import { RelationsService } from '../schema-admin/relations-service.js';
import { SchemaChanges, undoCutShortChanges } from '../schema-admin/schema-changes.js';
import { SettingsService } from '../project/settings-service.js';
import { SystemWrites } from '../engine/write/system-writes.js';
import { AccessResolver } from '../permissions/access-resolver.js';
import { PermissionStore } from '../permissions/permission-store.js';
import { LoginAttempts } from '../auth/login-attempts.js';
import { TfaService } from '../auth/tfa-service.js';
import { MeService } from '../auth/me-service.js';
import { DatabaseBus } from '../bus/database-bus.js';
import { CHANNELS, type MessageBus } from '../bus/message-bus.js';
import { CacheRegistry } from '../cache/cache-registry.js';
import { Invalidation } from '../cache/invalidation.js';
import { RedisBus } from '../bus/redis-bus.js';
import { RightsNotices } from '../realtime/rights-notices.js';
import { ChangeEvents } from '../engine/write/change-events.js';
import { SubscriptionHub } from '../realtime/hub/subscription-hub.js';
import { connectSoon, createRedisClient, type RedisClient } from '../bus/redis-connection.js';
import { consume, createRateLimiters, type RateLimiters } from '../bus/rate-limiters.js';

export interface AppContext {
  config: Config;
  db: Database;
  schema: SchemaStore;
  items: ItemsService;
  writer: ItemsWriter;
  /** Schema management (fields, collections, relations), serialised through `schemaChanges`. */
  schemaChanges: SchemaChanges;
  fields: FieldsService;
  collections: CollectionsService;
  relations: RelationsService;
  settings: SettingsService;
  auth: AuthService;
  tfa: TfaService;
  me: MeService;
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
  /** What every committed item write changed: here, and (with Redis) on every instance. */
  changes: ChangeEvents;
  /** Realtime subscriptions of this instance, re-read once per group of alike subscribers per event. */
  subscriptions: SubscriptionHub;
  /** Tells live sockets and the hub at once when rights change or a login ends (rights-notices.ts). */
  rights: RightsNotices;
  redis: RedisClient | null;
  rateLimiters: RateLimiters;
  /** What token expiry is measured against (a test's TestClock; the system clock otherwise). */
  clock: Clock;
  /** Reload the schema overview after a change made here, and tell the other instances. */
  schemaChanged(): Promise<void>;
  /** Drop cached accountabilities and permissions here, and tell the other instances. */
  permissionsChanged(): Promise<void>;
  /** POST /utils/cache/clear: every cache (schema overview, GraphQL schemas, permissions, users, settings) here and on every instance. */
  clearCaches(): Promise<void>;
  startedAt: number;
  close(): Promise<void>;
}

export interface ContextOptions {
  /** Run bootstrap (migrations; first admin on a fresh database) before serving. */
  bootstrap?: boolean;
  log?: { info(msg: string): void; warn(msg: string): void; error?(object: unknown, msg: string): void };
  /** What expiry (tokens, sessions, TFA windows) is measured against; the system clock unless a test injects one. */
  clock?: Clock;
}

export async function createAppContext(config: Config, options: ContextOptions = {}): Promise<AppContext> {
  const log = options.log ?? { info: () => {}, warn: () => {} };
  const db = new Database(config.db);
  let redis: RedisClient | null = null;
  try {
    await waitForDatabase(db, config, log);
    for (const warning of db.settingWarnings()) log.warn(warning);
    if (options.bootstrap) {
      const result = await bootstrap(db, config, log);
      if (result.generatedPassword) {
        log.warn(`Admin ${result.adminEmail} password (shown once): ${result.generatedPassword}`);
      }
    }
    const secret = resolveSecret(config);
    const undone = await undoCutShortChanges(db, { error: (object, msg) => log.error?.(object, msg) });
    if (undone) log.warn(`Undid ${undone} schema change(s) that a stopped process left half-made`);
    const caches = new CacheRegistry();
    const invalidation = new Invalidation(caches);
    const schema = new SchemaStore(db);
    // Before any other listener: what is built from the old overview goes before anything warms from the new one.
    schema.onLoad(() => void invalidation.changed('overview'));
    await schema.load();
    const permissions = new PermissionStore(db, caches);
    const access = new AccessResolver({ db, permissions });
    const items = new ItemsService({
      db,
      schema: () => schema.current,
      access,
      queryLimitDefault: config.queryLimitDefault,
    });
    const settings = new SettingsService(db, caches);
    // System writes call these after they commit.
    const permissionsChanged = () => invalidation.changed('permissions');
    const systemWrites = new SystemWrites({
      schema: () => schema.current,
      sql: db.dialect.sql,
      permissionsChanged,
      settingsChanged: () => invalidation.changed('settings'),
      passwordPolicy: () => settings.passwordPolicy(),
    });
    const changes = new ChangeEvents();
    const writer = new ItemsWriter({
      db,
      schema: () => schema.current,
      items,
      access,
      maxBatchMutation: config.maxBatchMutation,
      systemWrites,
      changes,
      hash: (plain) => hashPassword(plain, config.hash),
    });
    const clock = options.clock ?? systemClock;
    const logins = new LoginLiveness(new Sessions(db, clock), config.accessTokenTtlMs, clock, caches);
    const accountability = new AccountabilityResolver(db, secret, config.accessTokenTtlMs, logins, clock, caches);

    redis = config.redis ? await createRedisClient(config.redis.url, log, 'main') : null;
    if (redis) await connectSoon(redis, 2_000);
    const bus: MessageBus = redis
      ? await RedisBus.connect(redis, config.redis!.url, config.redis!.namespace, log)
      : new DatabaseBus(db, config.noticePollMs, log);
    if (bus instanceof DatabaseBus) {
      await bus.start();
      log.info(
        `No REDIS: other instances on this database learn of schema and permission changes within ${config.noticePollMs} ms (polled); set REDIS for instant notices`,
      );
    }
    // What a change sets off beyond the caches it clears (cache/invalidation.ts), in the order the changes come.
    // Another instance changed the schema (or cleared every cache): catch up (reloads run one at a time, in order).
    let reloading = Promise.resolve();
    const reload = () => {
      reloading = reloading
        .then(() => schema.load().then(() => undefined))
        .catch((error: Error) => log.warn(`Schema reload failed: ${error.message}`));
    };
    // Live sockets re-resolve their rights at once (rights-notices.ts), after the caches they resolve from are cleared.
    const rights = new RightsNotices();
    invalidation.after('schema', (_notice, origin) => origin === 'elsewhere' && reload());
    invalidation.after('permissions', () => rights.changed());
    invalidation.after('caches', (_notice, origin) => {
      rights.changed();
      if (origin === 'elsewhere') reload();
    });
    // Redis carries the login; the database's change counters only say that some login ended.
    invalidation.after('logins', (notice, origin) => {
      if (origin === 'elsewhere') logins.noteEnded(typeof notice.family === 'string' ? notice.family : null);
    });
    await invalidation.listen(bus);
    logins.announce = (family) => invalidation.changed('logins', { family });
    // Other instances may hold the overview of a change undone above.
    if (undone) await invalidation.changed('schema', { version: schema.current.version });
    // A logout here (before its answer) or elsewhere: the sockets of that login stop their events now.
    logins.onEnded = (family) => rights.loginEnded(family);
    // Only Redis carries an event's keys; the database bus's counters could not, so without Redis events stay local.
    await changes.start(bus instanceof RedisBus ? bus : null);

    const schemaChanged = async () => {
      const overview = await schema.load();
      await invalidation.changed('schema', { version: overview.version });
    };
    // The overview reloads here as the other instances reload theirs: its new version retires what was built on it.
    const clearCaches = async () => {
      const told = invalidation.changed('caches');
      await schema.load();
      await told;
    };
    const schemaChanges = new SchemaChanges(
      db,
      {
        current: () => schema.current,
        stale: () => bus.stale(CHANNELS.schema),
        reload: () => schema.load(),
        read: (session) => schema.read(session),
        schemaChanged,
        permissionsChanged,
      },
      { error: (object, msg) => log.error?.(object, msg) },
    );
    const schemaDeps = {
      schema: () => schemaChanges.current(),
      changes: schemaChanges,
      ddl: db.dialect.ddl,
      permissions,
    };

    const subscriptions = new SubscriptionHub({
      items,
      schema: () => schema.current,
      access,
      changes,
      shownMax: config.realtime.shownKeysMax,
      limits: config.websockets.subscriptionLimits,
      log,
    });
    rights.listen(() => subscriptions.rightsChanged());
    const openRedis = redis;
    const rateLimiters = createRateLimiters(config.rateLimiter, redis, config.redis?.namespace ?? 'strata');
    return {
      config,
      db,
      schema,
      items,
      writer,
      schemaChanges,
      fields: new FieldsService(schemaDeps),
      collections: new CollectionsService(schemaDeps),
      relations: new RelationsService(schemaDeps),
      settings,
      auth: new AuthService(
        db,
        secret,
        config,
        new LoginAttempts(config.rateLimiter.store === 'redis' ? redis : null, config.redis?.namespace ?? 'strata'),
        async (key) => {
          if (rateLimiters.login) await consume(rateLimiters.login, key);
        },
        logins,
        clock,
        changes,
      ),
      accountability,
      permissions,
      access,
      tfa: new TfaService(db, 'Strata', clock, changes),
      me: new MeService(db, permissions, () => schema.current),
      bus,
      caches,
      invalidation,
      changes,
      subscriptions,
      rights,
      redis,
      rateLimiters,
      clock,
      schemaChanged,
      permissionsChanged,
      clearCaches,
      startedAt: Date.now(),
      async close() {
        subscriptions.close();
        await bus.close();
        if (openRedis) await openRedis.close().catch(() => {});
        await db.close();
      },
    };
  } catch (error) {
    await db.close().catch(() => {});
    if (redis) await redis.close().catch(() => {});
    throw error;
  }
}
