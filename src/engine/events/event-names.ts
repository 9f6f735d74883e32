/**
 * Directus's event names for a write: a user collection's `items.<action>` and `<collection>.items.<action>`; a system
 * collection's `<scope>.<action>` (service_users → `users.create`), as Directus names them by the service's scope.
 */
export type ItemsEventAction = 'create' | 'update' | 'delete';

const SYSTEM_PREFIX = 'service_';

/** The names a write of `collection` raises, most general first (the order handlers of each name run in). */
export function itemsEventNames(collection: string, action: ItemsEventAction): string[] {
  if (collection.startsWith(SYSTEM_PREFIX)) return [`${collection.slice(SYSTEM_PREFIX.length)}.${action}`];
  return [`items.${action}`, `${collection}.items.${action}`];
}
