/**
 * Notices between Strata instances (schema changed, permissions changed). With Redis they travel over pub/sub;
 * without it there is only this instance, which has already acted on its own change, so nothing travels.
 */
import { randomUUID } from 'node:crypto';

export type Notice = Record<string, unknown>;
export type NoticeHandler = (notice: Notice) => void;

export interface MessageBus {
  /** This process; notices carry it so an instance ignores its own. */
  readonly instance: string;
  publish(channel: string, notice: Notice): Promise<void>;
  subscribe(channel: string, handler: NoticeHandler): Promise<void>;
  close(): Promise<void>;
}

export const CHANNELS = {
  schema: 'schema',
  permissions: 'permissions',
  /** Every cache cleared (POST /utils/cache/clear). */
  caches: 'caches',
} as const;

export class LocalBus implements MessageBus {
  readonly instance = randomUUID();

  async publish(): Promise<void> {}

  async subscribe(): Promise<void> {}

  async close(): Promise<void> {}
}
