/**
 * Start-up: what a change sets off beyond the caches it clears (cache/invalidation.ts), in the order the changes
 * come, here and on notice from other instances; then the invalidation and the change events start listening.
 */
import type { LoginLiveness } from '../auth/login-liveness.js';
import type { MessageBus } from '../bus/message-bus.js';
import { LayeredBus } from '../bus/layered-bus.js';
import { RedisBus } from '../bus/redis-bus.js';
import type { Invalidation } from '../cache/invalidation.js';
import type { ChangeEvents } from '../engine/write/change-events.js';
import { RightsNotices } from '../realtime/rights-notices.js';
import type { SchemaStore } from '../schema/schema-store.js';
import type { StartLog } from './start-log.js';

export interface ReactionParts {
  schema: SchemaStore;
  invalidation: Invalidation;
  logins: LoginLiveness;
  changes: ChangeEvents;
  bus: MessageBus;
  /** Schema changes undone at start (openDatabase): other instances may hold their overview. */
  undone: number;
  log: StartLog;
}

/** Registers the reactions and starts listening; the rights notices it returns tell live sockets of new rights. */
export async function reactToChanges(parts: ReactionParts): Promise<RightsNotices> {
  const { schema, invalidation, logins, changes, bus, log } = parts;
  // Another instance changed the schema (or cleared every cache): catch up (reloads run one at a time, in order).
  // The promise is awaited by the workers' relay, so a sibling's schema change is loaded before its answer leaves.
  let reloading = Promise.resolve();
  const reload = (): Promise<void> => {
    reloading = reloading
      .then(() => schema.load().then(() => undefined))
      .catch((error: Error) => log.warn(`Schema reload failed: ${error.message}`));
    return reloading;
  };
  // Live sockets re-resolve their rights at once (rights-notices.ts), after the caches they resolve from are cleared.
  const rights = new RightsNotices();
  invalidation.after('schema', (_notice, origin) => (origin === 'elsewhere' ? reload() : undefined));
  invalidation.after('permissions', () => rights.changed());
  invalidation.after('caches', (_notice, origin) => {
    rights.changed();
    return origin === 'elsewhere' ? reload() : undefined;
  });
  // Redis carries the login; the database's change counters only say that some login ended.
  invalidation.after('logins', (notice, origin) => {
    if (origin === 'elsewhere') logins.noteEnded(typeof notice.family === 'string' ? notice.family : null);
  });
  await invalidation.listen(bus);
  logins.announce = (family) => invalidation.changed('logins', { family });
  // Other instances may hold the overview of a change undone at start.
  if (parts.undone) await invalidation.changed('schema', { version: schema.current.version });
  // A logout here (before its answer) or elsewhere: the sockets of that login stop their events now.
  logins.onEnded = (family) => rights.loginEnded(family);
  // Redis and the workers' relay carry an event's keys; the database bus's counters could not, so without either
  // events stay in this process.
  await changes.start(bus instanceof RedisBus ? bus : bus instanceof LayeredBus ? bus.relay : null);
  return rights;
}
