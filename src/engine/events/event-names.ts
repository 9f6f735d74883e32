/**
 * Directus's event names for a write or a read: a user collection's `items.<action>` and
 * `<collection>.items.<action>`; a system collection's `<scope>.<action>` (service_users → `users.create`,
 * `users.query`), as Directus names them by the service's scope.
 */
export type ItemsEventAction = 'create' | 'update' | 'delete';
/** `query`: the filter before a read is planned; `read`: the action after it answered. */
export type ReadEventAction = 'query' | 'read';

const SYSTEM_PREFIX = 'service_';

/** The names a write or read of `collection` raises, most general first (the order handlers of each name run in). */
export function itemsEventNames(collection: string, action: ItemsEventAction | ReadEventAction): string[] {
  if (collection.startsWith(SYSTEM_PREFIX)) return [`${collection.slice(SYSTEM_PREFIX.length)}.${action}`];
  return [`items.${action}`, `${collection}.items.${action}`];
}

/** Whether `event` is a read's query filter (`items.query`, `<collection>.items.query`, `users.query`…). */
export function isQueryEvent(event: string): boolean {
  return event.endsWith('.query');
}
