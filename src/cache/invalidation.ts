/**
 * Which change clears which caches: the one table, and the one place that clears them. A change made here clears
 * at once (synchronously: the request that made it sees fresh data on its next request) and goes over the bus; the
 * same change heard from another instance clears the same caches there. What else a change sets off (live sockets
 * re-resolving their rights, the schema overview reloading) runs after the clears, as a reaction.
 */
import type { MessageBus, Notice } from '../bus/message-bus.js';
import type { CacheRegistry } from './cache-registry.js';
import type { CacheName } from './names.js';

export type Change = 'schema' | 'overview' | 'permissions' | 'settings' | 'logins' | 'caches' | 'flows';

interface Clears {
  clears: readonly CacheName[];
  /** The one entry a notice names (a login); every entry when it names none. */
  key?: (notice: Notice) => string | undefined;
  /** Sent to the other instances over the bus (channel = the change's name); else each instance's own. */
  bus: boolean;
}

export const INVALIDATION: Readonly<Record<Change, Clears>> = {
  /** The schema changed: the overview reloads, which is the `overview` change. */
  schema: { clears: [], bus: true },
  /** This instance loaded a new overview (GraphQL schemas are keyed by its version: the old ones go at once). */
  overview: { clears: ['graphql-schemas'], bus: false },
  /** Users, roles, policies, permissions or access rows were written. */
  permissions: { clears: ['permission-sets', 'users', 'static-tokens', 'public-policies'], bus: true },
  /** The settings row was written. */
  settings: { clears: ['settings'], bus: true },
  /** A logout ended a login: `{family}` (the database bus cannot carry it: then every live login is checked again). */
  logins: { clears: ['live-logins'], key: (n) => (typeof n.family === 'string' ? n.family : undefined), bus: true },
  /** Flows or operations were written: each instance reads its flows again (flows/flow-store.ts, no cache entry). */
  flows: { clears: [], bus: true },
  /** POST /utils/cache/clear (the overview reloads too). */
  caches: {
    clears: [
      'permission-sets',
      'users',
      'static-tokens',
      'public-policies',
      'settings',
      'live-logins',
      'graphql-schemas',
    ],
    bus: true,
  },
};

/** The caches no change clears, and why none needs to. */
export const NOT_CLEARED: Readonly<Partial<Record<CacheName, string>>> = {
  'ended-logins': 'what this instance was told or found: an ended login never comes back; kept for a token lifetime',
  'graphql-documents': 'per GraphQL schema object: a new schema starts with none',
  'graphql-pass-through': 'per compiled document, keyed by variable values',
  'graphql-selections': 'per parsed field nodes, keyed by variable values',
  'openapi-documents': 'keyed by schema version and permission-set object, which a change replaces',
  statements: 'keyed by schema version and permission-set object, which a change replaces',
  'statement-shapes': 'keyed by schema version and permission-set object, which a change replaces',
  'query-strings': 'the parse of a query string: a function of the text',
  'prepared-statements': 'prepared per connection by SQL text: a function of the text',
  responses:
    'the response cache drops by collection generations of its own (response-cache.ts); keyed by schema and rules hash',
};

export type Origin = 'here' | 'elsewhere';
/** A promise returned is awaited by the buses that wait for a notice to be acted on (the workers' relay). */
export type Reaction = (notice: Notice, origin: Origin) => unknown;

export class Invalidation {
  private bus: MessageBus | null = null;
  private readonly reactions = new Map<Change, Reaction[]>();

  constructor(readonly caches: CacheRegistry) {}

  /** Runs `reaction` after the clears of `change`, made here or heard from another instance. */
  after(change: Change, reaction: Reaction): void {
    this.reactions.set(change, [...(this.reactions.get(change) ?? []), reaction]);
  }

  /** Hears the changes of the other instances (every change the bus carries). */
  async listen(bus: MessageBus): Promise<void> {
    this.bus = bus;
    for (const change of Object.keys(INVALIDATION) as Change[]) {
      if (INVALIDATION[change].bus) await bus.subscribe(change, (notice) => this.apply(change, notice, 'elsewhere'));
    }
  }

  /** A change made here: its caches are clear when this returns; the promise is the other instances being told. */
  changed(change: Change, notice: Notice = {}): Promise<void> {
    void this.apply(change, notice, 'here');
    return INVALIDATION[change].bus && this.bus ? this.bus.publish(change, notice) : Promise.resolve();
  }

  /** The clears now; the promise is the reactions' own work (a reload) being done. */
  private async apply(change: Change, notice: Notice, origin: Origin): Promise<void> {
    const { clears, key } = INVALIDATION[change];
    const entry = key?.(notice);
    for (const name of clears) this.caches.clear(name, entry);
    const work = (this.reactions.get(change) ?? []).map((reaction) => reaction(notice, origin));
    await Promise.allSettled(work);
  }
}
