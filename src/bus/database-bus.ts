/**
 * MessageBus over the database itself, for instances that share a database but no Redis: each channel has a change
 * counter in service_notices; publishing increments it, and every instance polls the counters (a primary-key read
 * of two rows) every `intervalMs`. A counter that moved by a value this instance did not write means another
 * instance changed something: its handlers run (they reload, so a spurious run costs a reload, never a stale
 * answer). Counters move only on schema and permission changes, so polling reads and never writes.
 */
import { randomUUID } from 'node:crypto';
import type { Database } from '../db/connection.js';
import { NoticesRepository, type NoticeCounter } from '../db/repositories/notices.js';
import type { MessageBus, Notice, NoticeHandler } from './message-bus.js';

export interface DatabaseBusLog {
  warn(msg: string): void;
}

export class DatabaseBus implements MessageBus {
  readonly instance = randomUUID();
  private readonly handlers = new Map<string, NoticeHandler[]>();
  /** Per channel: the counter last seen, and the values this instance wrote since. */
  private readonly seen = new Map<string, bigint>();
  private readonly own = new Map<string, Set<bigint>>();
  private timer: NodeJS.Timeout | null = null;
  /** The polls and publishes, one after the other. */
  private polling: Promise<void> = Promise.resolve();
  private failing = false;
  private readonly notices: NoticesRepository;
  /** Told of each increment this instance makes (the sibling workers of a layered bus count it as theirs). */
  onOwn: ((channel: string, counter: bigint) => void) | null = null;

  constructor(
    db: Database,
    private readonly intervalMs: number,
    private readonly log: DatabaseBusLog,
  ) {
    this.notices = new NoticesRepository(db);
  }

  /** Reads the current counters (so that earlier changes are not replayed) and starts polling. */
  async start(): Promise<void> {
    for (const row of await this.notices.counters()) this.seen.set(String(row.channel), BigInt(row.counter));
    this.timer = setInterval(() => {
      this.polling = this.polling.then(() => this.poll());
    }, this.intervalMs);
    this.timer.unref();
  }

  /**
   * In turn with the polls: a poll between the increment and its noting as this instance's own would take it for
   * another instance's change (a needless reload).
   */
  publish(channel: string, _notice: Notice): Promise<void> {
    const published = this.polling.then(async () => {
      try {
        const counter = await this.notices.increment(channel);
        let own = this.own.get(channel);
        if (!own) this.own.set(channel, (own = new Set()));
        own.add(counter);
        this.onOwn?.(channel, counter);
      } catch (error) {
        // As with Redis: a lost notice only delays the others until the next change; the request has succeeded.
        this.log.warn(`Could not record a ${channel} change for other instances: ${(error as Error).message}`);
      }
    });
    this.polling = published;
    return published;
  }

  /** `counter` was written by a sibling worker, which relayed the change itself: not another instance's change. */
  noteOwn(channel: string, counter: bigint): void {
    if (counter <= (this.seen.get(channel) ?? 0n)) return;
    let own = this.own.get(channel);
    if (!own) this.own.set(channel, (own = new Set()));
    own.add(counter);
  }

  async subscribe(channel: string, handler: NoticeHandler): Promise<void> {
    this.handlers.set(channel, [...(this.handlers.get(channel) ?? []), handler]);
  }

  /** Whether `channel`'s counter moved by a change of another instance that polling has not delivered yet. */
  async stale(channel: string): Promise<boolean> {
    try {
      const row = await this.notices.counter(channel);
      const counter = row ? BigInt(row.counter) : 0n;
      const last = this.seen.get(channel) ?? 0n;
      const own = this.own.get(channel) ?? new Set<bigint>();
      for (let value = last + 1n; value <= counter; value++) if (!own.has(value)) return true;
      return false;
    } catch {
      return true;
    }
  }

  /** One look at the counters; a database that does not answer is retried at the next tick (logged once). */
  private async poll(): Promise<void> {
    let rows: NoticeCounter[];
    try {
      rows = await this.notices.counters();
      this.failing = false;
    } catch (error) {
      if (!this.failing) this.log.warn(`Polling for other instances' changes failed: ${(error as Error).message}`);
      this.failing = true;
      return;
    }
    for (const row of rows) {
      const channel = String(row.channel);
      const counter = BigInt(row.counter);
      const last = this.seen.get(channel) ?? 0n;
      if (counter <= last) continue;
      this.seen.set(channel, counter);
      const own = this.own.get(channel) ?? new Set<bigint>();
      let foreign = false;
      if (counter - last > BigInt(own.size)) foreign = true;
      for (let value = last + 1n; value <= counter && !foreign; value++) if (!own.has(value)) foreign = true;
      for (const value of own) if (value <= counter) own.delete(value);
      if (!foreign) continue;
      for (const handler of this.handlers.get(channel) ?? []) handler({ counter: String(counter) });
    }
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.polling.catch(() => {});
  }
}
