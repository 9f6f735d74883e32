/**
 * Notices between the worker processes of one instance (WORKERS > 1), relayed by their primary: a worker sends a
 * notice up, the primary hands it to every other worker, each runs its handlers (awaiting what they return) and says
 * so, and the primary tells the publisher once every other live worker has. So `publish` resolves only when the
 * notice is in effect on every sibling: a response-cache drop or a schema reload announced before a write's answer
 * is done everywhere before the answer leaves (docs/design/workers.md). Notices carry their payload, so realtime
 * change events cross workers too. The transport is an interface: process.send in a cluster (cluster-transport.ts),
 * anything that delivers in order in tests.
 */
import { randomUUID } from 'node:crypto';
import type { MessageBus, Notice, NoticeHandler } from './message-bus.js';

/** What travels between a worker and its primary (`strata: 'relay'` tells it from other IPC messages). */
export type RelayMessage =
  | { strata: 'relay'; kind: 'ready' }
  | { strata: 'relay'; kind: 'publish'; id: number; channel: string; notice: Notice }
  | { strata: 'relay'; kind: 'deliver'; ref: string; channel: string; notice: Notice }
  | { strata: 'relay'; kind: 'delivered'; ref: string }
  | { strata: 'relay'; kind: 'acked'; id: number };

export interface RelayTransport {
  send(message: RelayMessage): void;
  onMessage(handler: (message: RelayMessage) => void): void;
  /** The primary went away: nothing will be acknowledged any more. */
  onClose(handler: () => void): void;
}

export function isRelayMessage(message: unknown): message is RelayMessage {
  return typeof message === 'object' && message !== null && (message as { strata?: unknown }).strata === 'relay';
}

export class RelayBus implements MessageBus {
  readonly instance = randomUUID();
  private readonly handlers = new Map<string, NoticeHandler[]>();
  private readonly pending = new Map<number, () => void>();
  private next = 1;
  private closed = false;
  /** Per channel, deliveries whose handlers are still running. */
  private readonly running = new Map<string, number>();

  constructor(private readonly transport: RelayTransport) {
    transport.onMessage((message) => void this.receive(message));
    transport.onClose(() => this.release());
    // From now on this worker answers deliveries: the primary waits for it (not for one still starting).
    transport.send({ strata: 'relay', kind: 'ready' });
  }

  /** Resolves once every other worker has run its handlers for the notice (at once when the primary is gone). */
  publish(channel: string, notice: Notice): Promise<void> {
    if (this.closed) return Promise.resolve();
    const id = this.next++;
    const heard = new Promise<void>((resolve) => this.pending.set(id, resolve));
    this.transport.send({ strata: 'relay', kind: 'publish', id, channel, notice });
    return heard;
  }

  async subscribe(channel: string, handler: NoticeHandler): Promise<void> {
    this.handlers.set(channel, [...(this.handlers.get(channel) ?? []), handler]);
  }

  /** The relay alone cannot tell: callers that must not act on a stale state reload first (as with Redis). */
  async stale(): Promise<boolean> {
    return true;
  }

  /** Whether a sibling's notice on `channel` is still being acted on here (a reload not yet done). */
  busy(channel: string): boolean {
    return (this.running.get(channel) ?? 0) > 0;
  }

  async close(): Promise<void> {
    this.release();
  }

  private release(): void {
    this.closed = true;
    for (const resolve of this.pending.values()) resolve();
    this.pending.clear();
  }

  private async receive(message: RelayMessage): Promise<void> {
    if (message.kind === 'acked') {
      this.pending.get(message.id)?.();
      this.pending.delete(message.id);
      return;
    }
    if (message.kind !== 'deliver') return;
    const { channel } = message;
    this.running.set(channel, (this.running.get(channel) ?? 0) + 1);
    const runs = (this.handlers.get(channel) ?? []).map(async (handler) => handler(message.notice));
    // A handler's failure is its own (logged where it runs); the publisher is told either way.
    await Promise.allSettled(runs);
    this.running.set(channel, this.running.get(channel)! - 1);
    if (!this.closed) this.transport.send({ strata: 'relay', kind: 'delivered', ref: message.ref });
  }
}
