/**
 * Whether the login an access token comes from is still live: a logout ends it, and its access tokens stop working
 * at once. Checked on every request that carries a token with a `sid` claim, so the answer is kept in memory: a
 * live login for a few seconds (one database read per login and window), an ended one for good (an ended login
 * never comes back). The instance that ends a login forgets it at once and tells the others over the bus, so they
 * forget it too (the database bus, without Redis, only says that some login ended: live logins are checked again).
 */
import type { Cache } from '../cache/cache.js';
import { CacheRegistry } from '../cache/cache-registry.js';
import { systemClock, type Clock } from '../config/clock.js';
import type { Sessions } from './sessions.js';

const LIVE_MS = 5_000;
const MAX_ENTRIES = 10_000;

export class LoginLiveness {
  /** Logins looked up, for a few seconds; cleared by the `logins` change (cache/invalidation.ts). */
  private readonly live: Cache<string, boolean>;
  /** Logins known to have ended, for as long as their access tokens live. */
  private readonly ended: Cache<string, true>;
  /** Set once the bus exists: tells the other instances that a login ended. */
  announce: (family: string) => Promise<void> = async () => {};
  /** Told synchronously when a login ends here or elsewhere (null: some login, not known which): live sockets. */
  onEnded: (family: string | null) => void = () => {};

  constructor(
    private readonly sessions: Sessions,
    /** How long an ended login is remembered: its access tokens expire within it. */
    accessTokenTtlMs: number,
    private readonly clock: Clock = systemClock,
    caches = new CacheRegistry(),
  ) {
    const now = () => this.clock.now();
    this.live = caches.create('live-logins', { max: MAX_ENTRIES, ttlMs: LIVE_MS, now });
    this.ended = caches.create('ended-logins', { max: MAX_ENTRIES, ttlMs: accessTokenTtlMs, now });
  }

  async isLive(family: string): Promise<boolean> {
    if (this.ended.get(family)) return false;
    return this.live.load(family, async () => {
      const live = await this.sessions.familyLive(family);
      if (!live) this.noteEnded(family);
      return live;
    });
  }

  /** A logout here: the login ends here at once, and the other instances are told. */
  async end(family: string): Promise<void> {
    this.noteEnded(family);
    await this.announce(family);
  }

  /** A login ended (here, or elsewhere as a `logins` change tells; null: some login, not known which). */
  noteEnded(family: string | null): void {
    if (family !== null) this.ended.set(family, true);
    this.onEnded(family);
  }

  /** What the `logins` change does on a notice that names no login (tests: a logout on another instance). */
  recheck(): void {
    this.live.clear();
    this.onEnded(null);
  }
}
