/**
 * What one caller's schema shows: per collection, the fields it may read and the writes it may make. Admins see
 * every collection with a table; others what their read rules grant (field lists joined across rules). A write
 * shows only where the writer accepts it (so the mutations follow the writer as it learns more) and, for
 * non-admins, where a rule for that action exists.
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

/** `writable(collection)` asks the writer whether it would accept writes to the collection from this caller. */
export function buildAccessView(
  schema: SchemaOverview,
  accountability: Pick<Accountability, 'admin'>,
  permissions: PermissionSet | null,
  writable: (collection: string) => boolean,
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
    const canWrite = collection.primary !== null && writable(collection.collection);
    const may = (action: 'create' | 'update' | 'delete') => canWrite && (accountability.admin || (permissions?.for(collection.collection, action).length ?? 0) > 0);
    view.set(collection.collection, {
      collection,
      typeName: typeNameOf(schema, collection),
      fields,
      create: may('create') && !collection.singleton,
      update: may('update'),
      delete: may('delete') && !collection.singleton,
    });
  }
  return view;
}
