/**
 * Start-up: the bus that tells other instances what changed. Redis when configured (pub/sub, instant), else the
 * database's change counters, polled; a worker of several (WORKERS) without Redis also relays to its siblings at once.
 */
import cluster from 'node:cluster';
import { clusterTransport } from '../bus/cluster-transport.js';
import { DatabaseBus } from '../bus/database-bus.js';
import { LayeredBus } from '../bus/layered-bus.js';
import { RelayBus, type RelayTransport } from '../bus/relay-bus.js';
import type { MessageBus } from '../bus/message-bus.js';
import { RedisBus } from '../bus/redis-bus.js';
import { connectSoon, createRedisClient, type RedisClient } from '../bus/redis-connection.js';
import type { Config } from '../config/config.js';
import type { Database } from '../db/connection.js';
import type { StartLog } from './start-log.js';

/** The main Redis client, when Redis is configured (the caller closes it if start-up fails later). */
export async function openRedis(config: Config, log: StartLog): Promise<RedisClient | null> {
  const redis = config.redis ? await createRedisClient(config.redis.url, log, 'main') : null;
  if (redis) await connectSoon(redis, 2_000);
  return redis;
}

export async function connectBus(
  config: Config,
  db: Database,
  redis: RedisClient | null,
  log: StartLog,
  relay?: RelayTransport,
): Promise<MessageBus> {
  const bus: MessageBus = redis
    ? await RedisBus.connect(redis, config.redis!.url, config.redis!.namespace, log)
    : new DatabaseBus(db, config.noticePollMs, log);
  if (bus instanceof DatabaseBus) {
    await bus.start();
    log.info(
      `No REDIS: other instances on this database learn of schema and permission changes within ${config.noticePollMs} ms (polled); set REDIS for instant notices`,
    );
    const transport = relay ?? (config.workers > 1 && cluster.isWorker ? clusterTransport() : null);
    if (transport) return new LayeredBus(new RelayBus(transport), bus);
  }
  return bus;
}
