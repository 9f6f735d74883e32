/**
 * The bus of a worker when WORKERS > 1 and there is no Redis: the relay to its sibling workers (instant, carrying
 * payloads, acknowledged: relay-bus.ts) over the database's change counters (database-bus.ts), which still reach
 * other instances and answer `stale`. A worker that increments a counter tells its siblings (unacknowledged), who
 * count it as their own: they heard the change through the relay already, and so do not handle it twice.
 */
import type { DatabaseBus } from './database-bus.js';
import type { MessageBus, Notice, NoticeHandler } from './message-bus.js';
import type { RelayBus } from './relay-bus.js';

const OWN_CHANNEL = 'bus-own';

export class LayeredBus implements MessageBus {
  readonly instance: string;

  constructor(
    readonly relay: RelayBus,
    readonly outer: DatabaseBus,
  ) {
    this.instance = relay.instance;
    outer.onOwn = (channel, counter) => void relay.publish(OWN_CHANNEL, { channel, counter: String(counter) });
    void relay.subscribe(OWN_CHANNEL, (notice) => {
      if (typeof notice.channel === 'string' && typeof notice.counter === 'string')
        outer.noteOwn(notice.channel, BigInt(notice.counter));
    });
  }

  /** Resolves once the siblings have acted on it and the other instances' counter has moved. */
  async publish(channel: string, notice: Notice): Promise<void> {
    await Promise.all([this.relay.publish(channel, notice), this.outer.publish(channel, notice)]);
  }

  async subscribe(channel: string, handler: NoticeHandler): Promise<void> {
    await Promise.all([this.relay.subscribe(channel, handler), this.outer.subscribe(channel, handler)]);
  }

  /** A sibling's change still being loaded here, or another instance's not heard of yet. */
  async stale(channel: string): Promise<boolean> {
    return this.relay.busy(channel) || this.outer.stale(channel);
  }

  async close(): Promise<void> {
    await Promise.all([this.relay.close(), this.outer.close()]);
  }
}
