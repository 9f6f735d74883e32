/**
 * Start-up of the response cache (CACHE_ENABLED; docs/design/response-cache.md): its store, and the write path's
 * changes reaching it — before a write is acknowledged here, and from the other instances (through Redis, whose store
 * is shared, or their change events / the database bus for stores in each instance's memory).
 */
import type { MessageBus } from '../bus/message-bus.js';
import { CHANNELS } from '../bus/message-bus.js';
import { LayeredBus } from '../bus/layered-bus.js';
import type { RelayBus } from '../bus/relay-bus.js';
import type { RedisClient } from '../bus/redis-connection.js';
import { Cache } from '../cache/cache.js';
import type { Invalidation } from '../cache/invalidation.js';
import { RedisResponseStore } from '../cache/redis-response-store.js';
import { ResponseCache } from '../cache/response-cache.js';
import { ALL_TAG, MemoryResponseStore, type ResponseStore, type StoredAnswer } from '../cache/response-store.js';
import type { Clock } from '../config/clock.js';
import type { Config } from '../config/config.js';
import type { ChangeEvents } from '../engine/write/change-events.js';
import type { AccessResolver } from '../permissions/access-resolver.js';
import type { SchemaStore } from '../schema/schema-store.js';

export interface ResponseCacheParts {
  config: Config;
  redis: RedisClient | null;
  bus: MessageBus;
  engine: { changes: ChangeEvents; access: AccessResolver };
  invalidation: Invalidation;
  schema: SchemaStore;
  clock: Clock;
  log: { warn(message: string): void };
}

function memoryStore(config: Config, clock: Clock): MemoryResponseStore {
  const settings = config.responseCache;
  const entries = new Cache<string, StoredAnswer>('responses', {
    max: settings.memoryMaxEntries,
    maxSize: settings.memoryMaxSize,
    sizeOf: (answer, key) => answer.body.length + key.length * 2 + 64 * answer.tags.length + 200,
    ttlMs: settings.ttlMs,
    now: () => clock.now(),
  });
  return new MemoryResponseStore(entries);
}

export async function buildResponseCache(parts: ResponseCacheParts): Promise<ResponseCache | null> {
  const { config, redis, bus, invalidation } = parts;
  const { changes, access } = parts.engine;
  const settings = config.responseCache;
  if (!settings.enabled) return null;
  const shared = settings.store === 'redis' && redis !== null;
  const store: ResponseStore = shared
    ? new RedisResponseStore(redis, `${config.redis!.namespace}:${settings.namespace}`, settings.ttlMs)
    : memoryStore(config, parts.clock);
  const cache = new ResponseCache({
    store,
    schema: () => parts.schema.current,
    permissionsOf: (accountability) => access.permissionsOf(accountability),
    permissionsNow: (accountability) => access.permissionsNow(accountability),
    warn: (message) => parts.log.warn(message),
  });
  changes.beforeAcknowledge((collections) => cache.changed(collections));
  // POST /utils/cache/clear, here or elsewhere (a shared store is dropped once, by the instance that was asked).
  invalidation.after('caches', (_notice, origin) => {
    if (!shared || origin === 'here') void cache.changed([ALL_TAG]);
  });
  if (!shared) {
    // Writes of the other instances: their change events with Redis, else a notice on the database bus.
    if (redis) changes.listen((event) => void cache.changed([event.collection]));
    else {
      const outer = bus instanceof LayeredBus ? bus.outer : bus;
      const notice = coalesced(() => outer.publish(CHANNELS.responses, {}));
      changes.beforeAcknowledge(async () => notice());
      await outer.subscribe(CHANNELS.responses, () => void cache.changed([ALL_TAG]));
      if (bus instanceof LayeredBus) await dropOnSiblings(bus.relay, changes, cache);
    }
  }
  return cache;
}

/**
 * Sibling workers (WORKERS > 1, no Redis): a write's collections are dropped on every other worker before the write
 * is acknowledged (the relay resolves once each has bumped them), so no worker answers from before the write.
 */
async function dropOnSiblings(relay: RelayBus, changes: ChangeEvents, cache: ResponseCache): Promise<void> {
  changes.beforeAcknowledge((collections) => relay.publish(CHANNELS.responses, { collections }));
  await relay.subscribe(CHANNELS.responses, (notice) => {
    const collections = Array.isArray(notice.collections) ? notice.collections.filter(isText) : [];
    return cache.changed(collections.length ? collections : [ALL_TAG]);
  });
}

const isText = (value: unknown): value is string => typeof value === 'string';

/**
 * `send`, at most one at a time: calls while one is on its way make one more after it. The others poll the notice
 * counter, so one increment per poll tells them as much as one per write (which would double a write's statements).
 */
function coalesced(send: () => Promise<void>): () => void {
  let sending = false;
  let again = false;
  const run = (): void => {
    sending = true;
    again = false;
    void send()
      .catch(() => {})
      .finally(() => {
        sending = false;
        if (again) run();
      });
  };
  return () => {
    if (sending) again = true;
    else run();
  };
}
