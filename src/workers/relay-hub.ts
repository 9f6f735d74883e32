/**
 * The primary's half of the workers' relay (bus/relay-bus.ts): a notice from one worker goes to every other live
 * worker, and the publisher is told it was heard once each of them has said so, or has died.
 */
import { isRelayMessage, type RelayMessage } from '../bus/relay-bus.js';

/**
 * A worker as the hub sees it: a cluster Worker is one; the tests' pair mode (test/helpers/worker-pair.ts) joins two
 * in-process app contexts through the same hub with peers of their own.
 */
export interface RelayPeer {
  readonly id: number;
  isConnected(): boolean;
  send(message: RelayMessage, callback: (error: Error | null) => void): unknown;
  /** A worker's process, which the hub kills when it is stuck (in-process peers have none). */
  readonly process?: { kill(signal: NodeJS.Signals): unknown };
}

interface Waiting {
  origin: RelayPeer;
  id: number;
  left: Set<number>;
  timer: NodeJS.Timeout;
}

/**
 * How long a write's answer waits for its siblings to act on its notice. A worker that has not said so by then is
 * stuck (a blocked event loop): it is killed, so it can never answer from what the notice made stale, and replaced.
 */
export const RELAY_ACK_TIMEOUT_MS = 10_000;

export class RelayHub {
  private readonly waiting = new Map<string, Waiting>();
  private next = 0;
  /** Workers whose relay is listening (a worker still starting has nothing a notice would change). */
  private readonly ready = new Set<number>();

  constructor(
    private readonly live: () => RelayPeer[],
    private readonly ackTimeoutMs = RELAY_ACK_TIMEOUT_MS,
  ) {}

  /** A message from `from`; false when it is not the relay's. */
  receive(from: RelayPeer, message: unknown): boolean {
    if (!isRelayMessage(message)) return false;
    if (message.kind === 'ready') this.ready.add(from.id);
    else if (message.kind === 'publish') this.forward(from, message);
    else if (message.kind === 'delivered') this.heard(from.id, message.ref);
    return true;
  }

  /** A worker died: it will answer nothing, and nobody waits for its notices any more. */
  gone(worker: RelayPeer): void {
    this.ready.delete(worker.id);
    for (const [ref, waiting] of this.waiting) {
      if (waiting.origin === worker) {
        clearTimeout(waiting.timer);
        this.waiting.delete(ref);
      } else this.heard(worker.id, ref);
    }
  }

  private forward(from: RelayPeer, message: Extract<RelayMessage, { kind: 'publish' }>): void {
    const targets = this.live().filter(
      (worker) => worker !== from && this.ready.has(worker.id) && worker.isConnected(),
    );
    if (targets.length === 0) return send(from, { strata: 'relay', kind: 'acked', id: message.id });
    const ref = String(this.next++);
    const timer = setTimeout(() => this.stuck(ref), this.ackTimeoutMs).unref();
    const left = new Set(targets.map((worker) => worker.id));
    this.waiting.set(ref, { origin: from, id: message.id, left, timer });
    const deliver: RelayMessage = {
      strata: 'relay',
      kind: 'deliver',
      ref,
      channel: message.channel,
      notice: message.notice,
    };
    for (const worker of targets) send(worker, deliver);
  }

  private heard(workerId: number, ref: string): void {
    const waiting = this.waiting.get(ref);
    if (!waiting || !waiting.left.delete(workerId) || waiting.left.size > 0) return;
    clearTimeout(waiting.timer);
    this.waiting.delete(ref);
    send(waiting.origin, { strata: 'relay', kind: 'acked', id: waiting.id });
  }

  /** The workers that never answered `ref` are killed; their exits (gone) release the publisher. */
  private stuck(ref: string): void {
    const waiting = this.waiting.get(ref);
    if (!waiting) return;
    for (const worker of this.live()) if (waiting.left.has(worker.id)) worker.process?.kill('SIGKILL');
  }
}

/** A worker whose channel closed meanwhile is dying: its exit reaches `gone`. */
function send(worker: RelayPeer, message: RelayMessage): void {
  if (worker.isConnected()) worker.send(message, (error: Error | null) => void error);
}
