/**
 * Notices between Strata instances (schema changed, permissions changed; cache/invalidation.ts says what each clears). With Redis they travel over pub/sub
 * (redis-bus.ts); without it, through change counters in the database that every instance polls (database-bus.ts),
 * and between the worker processes of one instance (WORKERS) through their primary (relay-bus.ts, layered-bus.ts).
 */

export type Notice = Record<string, unknown>;
/**
 * What a notice sets off. A promise is awaited by the relay between workers (relay-bus.ts) before it tells the
 * publisher the notice was heard, so a change is in effect on every worker when the publisher's request answers.
 */
export type NoticeHandler = (notice: Notice) => void | Promise<unknown>;

export interface MessageBus {
  /** This process; notices carry it so an instance ignores its own. */
  readonly instance: string;
  publish(channel: string, notice: Notice): Promise<void>;
  subscribe(channel: string, handler: NoticeHandler): Promise<void>;
  /** Whether another instance may have published on `channel` and this one not heard of it yet. */
  stale(channel: string): Promise<boolean>;
  close(): Promise<void>;
}

export const CHANNELS = {
  schema: 'schema',
  permissions: 'permissions',
  /** A logout ended a login: `{family}`. */
  logins: 'logins',
  /** The settings row changed. */
  settings: 'settings',
  /** Every cache cleared (POST /utils/cache/clear). */
  caches: 'caches',
  /** Flows or operations were written: each instance reads its flows again. */
  flows: 'flows',
  /** Without Redis, a write dropped answers kept in memory: the other instances drop theirs. */
  responses: 'responses',
} as const;
