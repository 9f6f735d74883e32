/**
 * Which event flows a change sets off, by Directus's event names: a user collection's write raises
 * `items.<action>` (the flow's `scope`) for the collections the flow lists (`collections`), and its `$trigger.event`
 * is `<collection>.items.<action>`; a system collection's (service_users) raises `users.<action>`.
 */
import type { ChangeAction } from '../engine/write/change-events.js';
import type { FlowDefinition } from './flow-types.js';

const SYSTEM_PREFIX = 'service_';

function list(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  if (typeof value === 'string' && value !== '') return value.split(',').map((s) => s.trim());
  return [];
}

/** The event's full name, as `$trigger.event` carries it. */
export function eventName(collection: string, action: ChangeAction): string {
  if (collection.startsWith(SYSTEM_PREFIX)) return `${collection.slice(SYSTEM_PREFIX.length)}.${action}`;
  return `${collection}.items.${action}`;
}

export function flowType(flow: FlowDefinition): 'filter' | 'action' {
  return flow.options.type === 'filter' ? 'filter' : 'action';
}

/** Whether `flow` (trigger `event`) listens to `action` on `collection`. */
export function listensTo(flow: FlowDefinition, collection: string, action: ChangeAction): boolean {
  const scope = list(flow.options.scope);
  if (collection.startsWith(SYSTEM_PREFIX)) return scope.includes(eventName(collection, action));
  if (!scope.includes(`items.${action}`)) return false;
  return list(flow.options.collections).includes(collection);
}
