/**
 * Checks of a system collection's payloads that need the database or the caller (a version's item readable and its
 * collection versioned, a comment's item readable, its mentions real users), run before the write is planned. Only
 * the guard's owner knows the collections it guards: the writer calls it for every system write and the guard
 * ignores the rest. Guards may fill values the server owns (a version's `hash`) into the payloads.
 */
import type { Accountability } from '../../permissions/accountability.js';
import type { Payload } from '../../request/write-body.js';

export type GuardedAction = 'create' | 'update';

export interface PayloadGuard {
  check(collection: string, action: GuardedAction, payloads: Payload[], accountability: Accountability): Promise<void>;
}
