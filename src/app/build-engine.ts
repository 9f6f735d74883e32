/**
 * Start-up: the schema overview (loaded) and the engine over it: permissions and access, reads, writes (system writes
 * included) and the settings. Nothing here talks to other instances yet.
 */
import { runAsCaller } from '../db/caller-scope.js';
import { hashPassword } from '../auth/passwords.js';
import type { CacheRegistry } from '../cache/cache-registry.js';
import type { Invalidation } from '../cache/invalidation.js';
import type { Config } from '../config/config.js';
import type { Database } from '../db/connection.js';
import { ItemsService } from '../engine/read/items-service.js';
import { ChangeEvents } from '../engine/write/change-events.js';
import { EventEmitter } from '../engine/events/event-emitter.js';
import { ItemsWriter } from '../engine/write/items-writer.js';
import { SystemWrites } from '../engine/write/system-writes.js';
import { ContentGuard } from '../engine/versions/content-guard.js';
import { ItemLookups } from '../engine/versions/item-lookups.js';
import { VersionsService } from '../engine/versions/versions-service.js';
import { MentionNotices } from '../engine/versions/mention-notices.js';
import { loadUserAccountability } from '../auth/user-accountability.js';
import { AccessResolver } from '../permissions/access-resolver.js';
import { PermissionStore } from '../permissions/permission-store.js';
import { SettingsService } from '../project/settings-service.js';
import { SchemaStore } from '../schema/schema-store.js';
import { FilesService } from '../engine/files/files-service.js';
import { AssetService } from '../engine/files/asset-service.js';
import { StorageLocations } from '../storage/storage-locations.js';
import type { StartLog } from './start-log.js';

export interface Engine {
  /** With read replicas: runs a request's work as its caller, for read-your-writes (see CallerApi.asCaller). */
  asCaller: ((caller: string, work: () => void) => void) | undefined;
  permissions: PermissionStore;
  access: AccessResolver;
  items: ItemsService;
  writer: ItemsWriter;
  settings: SettingsService;
  changes: ChangeEvents;
  /** Hook events (filter, action, init) for extensions and flows. */
  events: EventEmitter;
  /** The storage locations (STORAGE_LOCATIONS) that hold the files' bytes. */
  storage: StorageLocations;
  /** Uploads, replacements and deletes of files: bytes and rows together. */
  files: FilesService;
  /** What /assets serves: originals and image variants. */
  assets: AssetService;
  /** Content versions: save, read as of, compare, promote. */
  versions: VersionsService;
  /** A comment's mentions: notifications, and mail once it is set up (`mailTo`). */
  mentions: MentionNotices;
  /** Announces a permissions change (system writes call it after they commit). */
  permissionsChanged(): Promise<void>;
}

/** The overview, loaded: its listener that retires what was built on the old one is registered before any other. */
export async function loadSchema(db: Database, invalidation: Invalidation): Promise<SchemaStore> {
  const schema = new SchemaStore(db);
  // Before any other listener: what is built from the old overview goes before anything warms from the new one.
  schema.onLoad(() => void invalidation.changed('overview'));
  await schema.load();
  return schema;
}

export function buildEngine(
  db: Database,
  config: Config,
  schema: SchemaStore,
  caches: CacheRegistry,
  invalidation: Invalidation,
  log?: StartLog,
): Engine {
  const permissions = new PermissionStore(db, caches);
  const access = new AccessResolver({ db, permissions });
  const events = new EventEmitter({
    filterTimeoutMs: config.extensions.filterTimeoutMs,
    onError: (error, event) =>
      log?.warn(`Hook "${event}" failed: ${error instanceof Error ? error.message : String(error)}`),
  });
  const items = new ItemsService({
    db,
    schema: () => schema.current,
    access,
    queryLimitDefault: config.queryLimitDefault,
    events,
  });
  const settings = new SettingsService(db, caches);
  // System writes call these after they commit.
  const permissionsChanged = () => invalidation.changed('permissions');
  const systemWrites = new SystemWrites({
    schema: () => schema.current,
    sql: db.dialect.sql,
    permissionsChanged,
    settingsChanged: () => invalidation.changed('settings'),
    flowsChanged: () => invalidation.changed('flows'),
    passwordPolicy: () => settings.passwordPolicy(),
  });
  const changes = new ChangeEvents();
  const lookups = new ItemLookups({ schema: () => schema.current, items });
  const writer = new ItemsWriter({
    db,
    schema: () => schema.current,
    items,
    access,
    maxBatchMutation: config.maxBatchMutation,
    systemWrites,
    changes,
    events,
    guard: new ContentGuard(lookups),
    hash: (plain) => hashPassword(plain, config.hash),
  });
  const storage = new StorageLocations(config.storage);
  const files = new FilesService({
    config: config.storage,
    storage,
    writer,
    items,
    // The row is gone; bytes left behind are reported, not answered (the client's delete did what it asked).
    onOrphan: (location, key) => log?.warn(`Storage "${location}": could not remove ${key}; it is left unused`),
  });
  const assets = new AssetService({
    config: config.storage,
    storage,
    items,
    settings: () => settings.assetSettings(),
  });
  const versions = new VersionsService({ lookups, writer });
  const mentions = new MentionNotices({
    lookups,
    writer,
    accountabilityOf: async (user) => {
      const found = await loadUserAccountability(db, 'id', user);
      return found ? { ...found, ip: null } : null;
    },
    publicUrl: config.docs.publicUrl,
  });
  writer.onCreated('service_comments', mentions.created);
  return {
    asCaller: config.db.replicas ? runAsCaller : undefined,
    permissions,
    access,
    items,
    writer,
    settings,
    changes,
    events,
    storage,
    files,
    assets,
    versions,
    mentions,
    permissionsChanged,
  };
}
