/**
 * Notices between Strata instances (schema changed, permissions changed; cache/invalidation.ts says what each clears). With Redis they travel over pub/sub
 * (redis-bus.ts); without it, through change counters in the database that every instance polls (database-bus.ts).
 */

export type Notice = Record<string, unknown>;
export type NoticeHandler = (notice: Notice) => void;

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
