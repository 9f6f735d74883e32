/**
 * Holds change events back while a subscription is on its way to the hub. A graphql-ws `subscribe` has no answer
 * of its own: to the client the subscription is live once the message is sent, but between reading it and the hub
 * queueing its first read the server checks the token and the rate limit, builds the caller's schema and validates
 * the document, and a write committed meanwhile would be missed. Events that arrive while a hold is open wait until
 * every hold that was open at their arrival is released, then go on in arrival order; so an event waits at most as
 * long as the slowest of those holds (each released at the latest after `maxMs`), never on holds taken after it.
 */
import type { ChangeEvent } from '../../engine/write/change-events.js';

/** A hold released by nobody (a bug, an operation that never ends) lets its events go after this long. */
export const HOLD_MAX_MS = 10_000;

export class EventHold {
  private lastId = 0;
  /** Open holds by id (ids grow). */
  private readonly open = new Set<number>();
  /** Held events, in arrival order, each with the last hold id open at its arrival. */
  private readonly held: { event: ChangeEvent; upTo: number }[] = [];

  constructor(
    private readonly deliver: (event: ChangeEvent) => void,
    private readonly maxMs = HOLD_MAX_MS,
  ) {}

  /** Opens a hold; the function returned releases it (once; later calls do nothing). */
  take(): () => void {
    const id = ++this.lastId;
    this.open.add(id);
    const timer = setTimeout(() => release(), this.maxMs);
    timer.unref();
    const release = () => {
      if (!this.open.delete(id)) return;
      clearTimeout(timer);
      this.flush();
    };
    return release;
  }

  /** Keeps the event back when a hold is open (or earlier events still wait); false: deliver it now. */
  offer(event: ChangeEvent): boolean {
    if (this.open.size === 0 && this.held.length === 0) return false;
    this.held.push({ event, upTo: this.lastId });
    return true;
  }

  /** Lets go, in order, the events no open hold is older than. */
  private flush(): void {
    let oldest = Infinity;
    for (const id of this.open) oldest = Math.min(oldest, id);
    while (this.held.length && this.held[0]!.upTo < oldest) this.deliver(this.held.shift()!.event);
  }
}
