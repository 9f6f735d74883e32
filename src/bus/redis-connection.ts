/**
 * Redis clients that never stall a request: commands fail at once while the server is away (no offline queue), the
 * client reconnects by itself with a capped backoff, and an outage is logged once, not once per retry.
 */
import type { createClient as CreateClient } from 'redis';

// node-redis is loaded by the first client (the main one, as the context starts): a process without Redis
// configured (most CLI commands, most tests) does not parse its 600 modules.
let createClient: typeof CreateClient | null = null;

function newClient(url: string) {
  return createClient!({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: 2_000, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2_000) },
  });
}

export type RedisClient = ReturnType<typeof newClient>;

async function loadRedis(): Promise<void> {
  createClient ??= (await import('redis')).createClient;
}

export interface BusLog {
  info(message: string): void;
  warn(message: string): void;
}

export async function createRedisClient(url: string, log: BusLog, name: string): Promise<RedisClient> {
  await loadRedis();
  const client = newClient(url);
  let down = false;
  client.on('error', (error: Error) => {
    if (down) return;
    down = true;
    log.warn(`Redis (${name}) is unavailable: ${error.message}; continuing without it and reconnecting`);
  });
  client.on('ready', () => {
    if (down) log.info(`Redis (${name}) is back`);
    down = false;
  });
  return client;
}

/** Connects in the background; resolves once connected or after `waitMs`, whichever comes first. */
export async function connectSoon(client: RedisClient, waitMs: number): Promise<void> {
  const connecting = client.connect().catch(() => {});
  await Promise.race([connecting, new Promise((resolve) => setTimeout(resolve, waitMs).unref())]);
}
