/**
 * Whether the login an access token comes from is still live: a logout ends it, and its access tokens stop working
 * at once. Checked on every request that carries a token with a `sid` claim, so the answer is kept in memory: a
 * live login for a few seconds (one database read per login and window), an ended one for good (an ended login
 * never comes back). The instance that ends a login forgets it at once and tells the others over the bus, so they
 * forget it too (the database bus, without Redis, only says that some login ended: live logins are checked again).
 */
import { systemClock, type Clock } from '../config/clock.js';
import type { Sessions } from './sessions.js';

const LIVE_MS = 5_000;
const MAX_ENTRIES = 10_000;

export class LoginLiveness {
  private readonly live = new Map<string, number>();
  private readonly ended = new Map<string, number>();
  /** Moves on at every `recheck()`: a check already on its way may have read a login that has just ended. */
  private rechecks = 0;
  /** Set once the bus exists: tells the other instances that a login ended. */
  announce: (family: string) => Promise<void> = async () => {};
  /** Told synchronously when a login ends here or elsewhere (null: some login, not known which): live sockets. */
  onEnded: (family: string | null) => void = () => {};

  constructor(
    private readonly sessions: Sessions,
    /** How long an ended login is remembered: its access tokens expire within it. */
    private readonly accessTokenTtlMs: number,
    private readonly clock: Clock = systemClock,
  ) {}

  async isLive(family: string): Promise<boolean> {
    const now = this.clock.now();
    if (this.ended.has(family)) return false;
    const checked = this.live.get(family);
    if (checked !== undefined && now - checked < LIVE_MS) return true;
    const rechecks = this.rechecks;
    const live = await this.sessions.familyLive(family);
    if (!live) this.forget(family, now);
    else if (rechecks === this.rechecks) this.remember(this.live, family, now);
    return live;
  }

  /** A logout here: forget the login and tell the other instances. */
  async end(family: string): Promise<void> {
    this.forget(family, this.clock.now());
    await this.announce(family);
  }

  /** A logout on another instance. */
  forget(family: string, now = this.clock.now()): void {
    this.live.delete(family);
    this.remember(this.ended, family, now);
    this.onEnded(family);
  }

  /** Some login ended on another instance (which one is not known): live logins are checked again. */
  recheck(): void {
    this.rechecks += 1;
    this.live.clear();
    this.onEnded(null);
  }

  private remember(map: Map<string, number>, family: string, now: number): void {
    if (map.size >= MAX_ENTRIES) {
      // Ended logins older than an access token's lifetime matter no more; live ones are only a cache.
      for (const [key, at] of map) if (map === this.live || now - at > this.accessTokenTtlMs) map.delete(key);
      if (map.size >= MAX_ENTRIES) map.delete(map.keys().next().value!);
    }
    map.set(family, now);
  }
}
