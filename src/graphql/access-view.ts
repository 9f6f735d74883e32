/**
 * What one caller's schema shows: per collection, the fields it may read and the writes it may make. Admins see
 * every collection with a table; others what their read rules grant (field lists joined across rules). A write
 * shows where the writer says the caller may make it (a writable collection and, for non-admins, a rule for the
 * action); the writer still checks every write.
 */
import type { Accountability } from '../permissions/accountability.js';
import type { PermissionSet } from '../permissions/permission-store.js';
import type { CollectionOverview, SchemaOverview } from '../schema/types.js';

export interface CollectionView {
  collection: CollectionOverview;
  /** GraphQL type name: the collection's name, service_* tables without their prefix. */
  typeName: string;
  fields: string[];
  create: boolean;
  update: boolean;
  delete: boolean;
}

export type AccessView = Map<string, CollectionView>;

const NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/** The service_* collections GraphQL serves as items (as their REST routes do); the other service_* tables are internal. */
export const SYSTEM_ITEM_COLLECTIONS = new Set(['service_users', 'service_roles', 'service_policies', 'service_access', 'service_permissions', 'service_settings']);
const SYSTEM_PREFIX = 'service_';

export function typeNameOf(schema: SchemaOverview, collection: CollectionOverview): string {
  if (!collection.system || !collection.collection.startsWith(SYSTEM_PREFIX)) return collection.collection;
  const stripped = collection.collection.slice(SYSTEM_PREFIX.length);
  return schema.collections[stripped] ? collection.collection : stripped;
}

/** System collections that are singletons whatever their metadata says (REST's /settings reads and writes one row). */
export const SYSTEM_SINGLETONS = new Set(['service_settings']);

export type WriteAction = 'create' | 'update' | 'delete';

/** `writable(collection, action)` asks the writer whether this caller may write so (ItemsWriter.canWrite). */
export function buildAccessView(
  schema: SchemaOverview,
  accountability: Pick<Accountability, 'admin'>,
  permissions: PermissionSet | null,
  writable: (collection: CollectionOverview, action: WriteAction) => boolean,
): AccessView {
  const view: AccessView = new Map();
  for (const collection of Object.values(schema.collections)) {
    if (!collection.schema || !NAME.test(collection.collection)) continue;
    if (collection.system && !SYSTEM_ITEM_COLLECTIONS.has(collection.collection)) continue;
    let fields: string[];
    if (accountability.admin || !permissions) {
      fields = collection.fieldOrder;
    } else {
      const rules = permissions.for(collection.collection, 'read');
      if (!rules.length) continue;
      const all = rules.some((rule) => rule.fields === '*');
      const granted = new Set(rules.flatMap((rule) => (rule.fields === '*' ? [] : rule.fields)));
      fields = collection.fieldOrder.filter((name) => all || granted.has(name));
    }
    fields = fields.filter((name) => NAME.test(name) && collection.fields[name]);
    if (!fields.length) continue;
    const singleton = collection.singleton || SYSTEM_SINGLETONS.has(collection.collection);
    const may = (action: WriteAction) => collection.primary !== null && writable(collection, action);
    view.set(collection.collection, {
      collection,
      typeName: typeNameOf(schema, collection),
      fields,
      create: may('create') && !singleton,
      update: may('update'),
      delete: may('delete') && !singleton,
    });
  }
  return view;
}
