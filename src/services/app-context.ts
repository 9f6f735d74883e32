/**
 * Everything a running Strata holds: the connection, the schema store and the services over them. Built once at
 * start (and by tests); the HTTP front end only talks to this.
 */
import type { Config } from '../config/config.js';
import { resolveSecret } from '../config/secret-store.js';
import { Database } from '../db/connection.js';
import { waitForDatabase } from '../db/wait-for-database.js';
import { AccountabilityResolver } from '../auth/accountability-resolver.js';
import { SchemaStore } from '../schema/schema-store.js';
import { AuthService } from './auth-service.js';
import { bootstrap } from './bootstrap.js';
import { CollectionsService } from './collections-service.js';
import { FieldsService } from './fields-service.js';
import { ItemsService } from './items-service.js';
import { RelationsService } from './relations-service.js';
import { SchemaChanges } from './schema-changes.js';
import { SettingsService } from './settings-service.js';

export interface AppContext {
  config: Config;
  db: Database;
  schema: SchemaStore;
  items: ItemsService;
  /** Schema management (fields, collections, relations), serialised through `schemaChanges`. */
  schemaChanges: SchemaChanges;
  fields: FieldsService;
  collections: CollectionsService;
  relations: RelationsService;
  settings: SettingsService;
  auth: AuthService;
  accountability: AccountabilityResolver;
  startedAt: number;
  close(): Promise<void>;
}

export interface ContextOptions {
  /** Run bootstrap (migrations; first admin on a fresh database) before serving. */
  bootstrap?: boolean;
  log?: { info(msg: string): void; warn(msg: string): void; error?(object: unknown, msg: string): void };
}

export async function createAppContext(config: Config, options: ContextOptions = {}): Promise<AppContext> {
  const log = options.log ?? { info: () => {}, warn: () => {} };
  const db = new Database(config.db);
  try {
    await waitForDatabase(db, config, log);
    if (options.bootstrap) {
      const result = await bootstrap(db, config, log);
      if (result.generatedPassword) {
        log.warn(`Admin ${result.adminEmail} password (shown once): ${result.generatedPassword}`);
      }
    }
    const secret = resolveSecret(config);
    const schema = new SchemaStore(db);
    await schema.load();
    const items = new ItemsService({ db, schema: () => schema.current, queryLimitDefault: config.queryLimitDefault });
    const schemaChanges = new SchemaChanges(db, schema, { error: (object, msg) => log.error?.(object, msg) });
    const schemaDeps = { schema: () => schema.current, changes: schemaChanges, ddl: db.dialect.ddl };
    return {
      config,
      db,
      schema,
      items,
      schemaChanges,
      fields: new FieldsService(schemaDeps),
      collections: new CollectionsService(schemaDeps),
      relations: new RelationsService(schemaDeps),
      settings: new SettingsService(db),
      auth: new AuthService(db, secret, config),
      accountability: new AccountabilityResolver(db, secret),
      startedAt: Date.now(),
      close: () => db.close(),
    };
  } catch (error) {
    await db.close().catch(() => {});
    throw error;
  }
}
