/** MessageBus over Redis pub/sub: one publishing client, one subscribing client (node-redis resubscribes itself). */
import { randomUUID } from 'node:crypto';
import type { MessageBus, Notice, NoticeHandler } from './message-bus.js';
import { connectSoon, createRedisClient, type BusLog, type RedisClient } from './redis-connection.js';

export class RedisBus implements MessageBus {
  readonly instance = randomUUID();

  private constructor(
    private readonly publisher: RedisClient,
    private readonly subscriber: RedisClient,
    private readonly namespace: string,
  ) {}

  static async connect(publisher: RedisClient, url: string, namespace: string, log: BusLog): Promise<RedisBus> {
    const bus = new RedisBus(publisher, await createRedisClient(url, log, 'bus subscriber'), namespace);
    await connectSoon(bus.subscriber, 2_000);
    return bus;
  }

  async publish(channel: string, notice: Notice): Promise<void> {
    // A notice lost while Redis is away only delays other instances until their next change; never fail the request.
    await this.publisher
      .publish(`${this.namespace}:bus:${channel}`, JSON.stringify({ ...notice, instance: this.instance }))
      .catch(() => {});
  }

  async subscribe(channel: string, handler: NoticeHandler): Promise<void> {
    await this.subscriber
      .subscribe(`${this.namespace}:bus:${channel}`, (text: string) => {
        let notice: Notice;
        try {
          notice = JSON.parse(text) as Notice;
        } catch {
          return;
        }
        if (notice.instance !== this.instance) handler(notice);
      })
      .catch(() => {});
  }

  /** A notice may be in flight at any moment: callers that must not act on a stale state reload first. */
  async stale(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.subscriber.close()]);
  }
}
