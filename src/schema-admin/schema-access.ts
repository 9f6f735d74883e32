/**
 * Who may see and manage the schema. Changes are for admins only. Reads of /collections, /fields and /relations
 * (Directus docs: API reference, Access control, Collections) are open to users with app access, or with read permission on the metadata
 * collection itself (service_collections, service_fields, service_relations), and show only what they may read:
 * collections with at least one read rule (and the folders that group them), fields in their read field sets,
 * relations whose collections and fields are all visible. Anyone else gets 403.
 */
import { collectionForbidden, fieldForbidden, ForbiddenError } from '../errors/catalogue.js';
import type { Accountability } from '../permissions/accountability.js';
import type { PermissionStore } from '../permissions/permission-store.js';
import { SYSTEM_PREFIX } from './input/collection-input.js';
import { EXTENSIBLE_SYSTEM_COLLECTIONS, isCustomSystemField } from '../schema/system-meta.js';
import type { CollectionOverview, FieldOverview, RelationOverview, SchemaOverview } from '../schema/types.js';

export function requireAdmin(accountability: Accountability): void {
  if (!accountability.admin) throw new ForbiddenError();
}

export function existingCollection(schema: SchemaOverview, collection: string): CollectionOverview {
  const found = schema.collections[collection];
  if (!found) throw collectionForbidden(collection);
  return found;
}

/** A collection the API may change: it exists and is not one of Strata's own service_* tables. */
export function writableCollection(schema: SchemaOverview, collection: string): CollectionOverview {
  const found = existingCollection(schema, collection);
  if (found.system || collection.startsWith(SYSTEM_PREFIX))
    throw new ForbiddenError(`Collection "${collection}" is a system collection and can't be changed`);
  return found;
}

/**
 * A collection whose fields the API may add: a user collection, or a system collection open to an admin's own fields
 * (service_users and the others served as items; system-meta.ts).
 */
export function fieldsWritableCollection(schema: SchemaOverview, collection: string): CollectionOverview {
  const found = existingCollection(schema, collection);
  return EXTENSIBLE_SYSTEM_COLLECTIONS.has(collection) ? found : writableCollection(schema, collection);
}

/** A field the API may change or delete: any of a user collection; of a system collection, only an admin's own. */
export function writableField(schema: SchemaOverview, collection: string, field: string): FieldOverview {
  const found = fieldsWritableCollection(schema, collection).fields[field];
  if (!found) throw fieldForbidden(field, collection);
  if (schema.collections[collection]!.system && !isCustomSystemField(collection, field))
    throw new ForbiddenError(`Field "${field}" of collection "${collection}" is a system field and can't be changed`);
  return found;
}

/** The part of the schema a caller may see through the metadata endpoints. */
export interface SchemaVisibility {
  collection(name: string): boolean;
  field(collection: string, field: string): boolean;
}

export const EVERYTHING: SchemaVisibility = { collection: () => true, field: () => true };

export type MetadataCollection = 'service_collections' | 'service_fields' | 'service_relations';

export async function schemaVisibility(
  accountability: Accountability,
  permissions: PermissionStore,
  schema: SchemaOverview,
  metadata: MetadataCollection,
): Promise<SchemaVisibility> {
  if (accountability.admin) return EVERYTHING;
  const set = await permissions.forPolicies(accountability.policies, { app: accountability.app });
  if (!accountability.app && !set.for(metadata, 'read').length) throw new ForbiddenError();

  const readable = new Map<string, '*' | Set<string>>();
  for (const rule of set.rules) {
    if (rule.action === 'read' && schema.collections[rule.collection] && !readable.has(rule.collection))
      readable.set(rule.collection, set.fields(rule.collection, 'read'));
  }
  // Folders (no table) holding a readable collection, at any depth, are shown so that the tree stays whole.
  const folders = new Set<string>();
  for (const name of readable.keys()) {
    let group = schema.collections[name]?.meta?.group ?? null;
    while (group && !folders.has(group) && !readable.has(group)) {
      folders.add(group);
      group = schema.collections[group]?.meta?.group ?? null;
    }
  }
  return {
    collection: (name) => readable.has(name) || folders.has(name),
    field(collection, field) {
      const fields = readable.get(collection);
      return fields !== undefined && (fields === '*' || fields.has(field));
    },
  };
}

/**
 * A relation is shown when the caller sees both of its ends: the collections it joins (every allowed collection
 * of an m2a), the field holding the key and the alias on the other side.
 */
export function relationVisible(visibility: SchemaVisibility, relation: RelationOverview): boolean {
  if (!visibility.collection(relation.collection) || !visibility.field(relation.collection, relation.field))
    return false;
  if (relation.related_collection) {
    if (!visibility.collection(relation.related_collection)) return false;
    const oneField = relation.meta?.one_field;
    if (oneField && !visibility.field(relation.related_collection, oneField)) return false;
  }
  const allowed = relation.meta?.one_allowed_collections;
  return !allowed || allowed.every((name) => visibility.collection(name));
}
