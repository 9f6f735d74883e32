/** Start-up: schema management (fields, collections, relations), serialised through one `SchemaChanges`. */
import { CHANNELS, type MessageBus } from '../bus/message-bus.js';
import type { Invalidation } from '../cache/invalidation.js';
import type { Database } from '../db/connection.js';
import type { PermissionStore } from '../permissions/permission-store.js';
import { CollectionsService } from '../schema-admin/collections-service.js';
import { FieldsService } from '../schema-admin/fields-service.js';
import { RelationsService } from '../schema-admin/relations-service.js';
import { SchemaChanges } from '../schema-admin/schema-changes.js';
import type { SchemaStore } from '../schema/schema-store.js';
import type { StartLog } from './start-log.js';

export interface SchemaAdmin {
  schemaChanges: SchemaChanges;
  fields: FieldsService;
  collections: CollectionsService;
  relations: RelationsService;
  /** Reload the schema overview after a change made here, and tell the other instances. */
  schemaChanged(): Promise<void>;
}

export interface SchemaAdminParts {
  db: Database;
  schema: SchemaStore;
  bus: MessageBus;
  invalidation: Invalidation;
  permissions: PermissionStore;
  permissionsChanged(): Promise<void>;
  log: StartLog;
}

export function buildSchemaAdmin(parts: SchemaAdminParts): SchemaAdmin {
  const { db, schema, bus, invalidation, permissions, log } = parts;
  const schemaChanged = async () => {
    const overview = await schema.load();
    await invalidation.changed('schema', { version: overview.version });
  };
  const schemaChanges = new SchemaChanges(
    db,
    {
      current: () => schema.current,
      stale: () => bus.stale(CHANNELS.schema),
      reload: () => schema.load(),
      read: (session) => schema.read(session),
      schemaChanged,
      permissionsChanged: parts.permissionsChanged,
    },
    { error: (object, msg) => log.error?.(object, msg) },
  );
  const schemaDeps = {
    schema: () => schemaChanges.current(),
    changes: schemaChanges,
    ddl: db.dialect.ddl,
    permissions,
  };
  return {
    schemaChanges,
    fields: new FieldsService(schemaDeps),
    collections: new CollectionsService(schemaDeps),
    relations: new RelationsService(schemaDeps),
    schemaChanged,
  };
}
