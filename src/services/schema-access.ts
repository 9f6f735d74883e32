/**
 * Who may manage the schema, and which collections can be managed. Admins only for now: issue 6 brings the
 * app_access rules for non-admin reads of /fields, /collections and /relations.
 */
import { collectionForbidden, ForbiddenError } from '../errors/catalogue.js';
import type { Accountability } from '../permissions/accountability.js';
import { SYSTEM_PREFIX } from '../schema/collection-input.js';
import type { CollectionOverview, SchemaOverview } from '../schema/types.js';

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
  if (found.system || collection.startsWith(SYSTEM_PREFIX)) throw new ForbiddenError(`Collection "${collection}" is a system collection and can't be changed`);
  return found;
}
