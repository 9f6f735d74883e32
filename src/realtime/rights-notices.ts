/**
 * Tells the live realtime connections of this instance, at once, that their rights may have changed: a user, role,
 * policy, access or permission row was written here or on another instance (the bus's `permissions` and `caches`
 * notices), or a login ended (a logout here, or the bus's `logins` notice). A connection re-resolves its token (or the
 * Public policy) as soon as it hears, and holds its events until it has: an event read under rights it no longer has
 * is never sent, and a logout stops a socket's events before the logout's answer leaves (on this instance) or as soon
 * as the notice arrives (elsewhere). The subscription hub listens too: its groups regroup and re-check the rules.
 * Without this a socket kept the rights it was resolved with (its user's new role, a detached policy or a demotion
 * from admin did not reach its subscriptions), and a logout showed only at the next once-a-second recheck.
 */
import type { Accountability } from '../permissions/accountability.js';

export interface RightsWatcher {
  /** The login (session family, the token's `sid`) the connection's token belongs to, when the token names one. */
  readonly login: string | null;
  /** The token stands for a session (session mode) and names no login: any ended login may be its own. */
  readonly sessionBound: boolean;
  /** Rights may have changed: called synchronously at the notice; the connection re-resolves and tells its client. */
  rightsChanged(): void;
}

export class RightsNotices {
  private readonly watchers = new Set<RightsWatcher>();
  private readonly listeners = new Set<() => void>();

  /** A connection, until the returned function is called (it closes). */
  watch(watcher: RightsWatcher): () => void {
    this.watchers.add(watcher);
    return () => void this.watchers.delete(watcher);
  }

  /** Something that keeps rights of its own (the subscription hub's groups) and is told of every change first. */
  listen(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Access rows changed (anyone's rights may have): every connection re-checks. */
  changed(): void {
    for (const listener of this.listeners) guarded(listener);
    for (const watcher of this.watchers) guarded(() => watcher.rightsChanged());
  }

  /** A login ended: its connections re-check. `family` null: some login, not known which (the database bus). */
  loginEnded(family: string | null): void {
    for (const watcher of this.watchers) {
      const mayBeIt = watcher.sessionBound || (watcher.login !== null && (family === null || watcher.login === family));
      if (mayBeIt) guarded(() => watcher.rightsChanged());
    }
  }

  /** Live connections watched (tests read it: a closed socket must not stay). */
  get size(): number {
    return this.watchers.size;
  }
}

/** One connection's failure to take a notice is its own; the others still hear it. */
function guarded(call: () => void): void {
  try {
    call();
  } catch {
    // A connection that throws here is closing; nothing to tell it.
  }
}

/** Whether two resolutions of one connection give it the same rights (which rows it may read is decided by these). */
export function sameRights(a: Accountability | null, b: Accountability | null): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  return (
    a.user === b.user &&
    a.role === b.role &&
    a.admin === b.admin &&
    a.app === b.app &&
    sameSet(a.roles, b.roles) &&
    sameSet(a.policies, b.policies)
  );
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const set = new Set(a);
  return b.every((value) => set.has(value));
}
