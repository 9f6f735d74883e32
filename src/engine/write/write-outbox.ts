/**
 * What a write hands the outbox (the flows' deliveries, src/flows/flow-outbox.ts): inside its transaction, after its
 * statements, the changes it made — so that what must be delivered commits, or rolls back, with the change itself —
 * and, once committed, a nudge to deliver now.
 */
import type { Executor } from '../../db/connection.js';
import type { WriteContext } from '../../plan/write-context.js';
import type { ChangeRecorder } from './change-events.js';

export interface WriteOutbox {
  /** Whether the writes should keep their items' values (some event flow listens). */
  listening(): boolean;
  /** Whether `record` records the extensions' durable actions (then the write leaves them out of its actions). */
  handlesHooks(): boolean;
  /** In the write's transaction: records the deliveries its changes call for; whether it recorded any. */
  record(tx: Executor, changes: ChangeRecorder, ctx: WriteContext): Promise<boolean>;
  /** After commit, when `record` recorded something: deliver now rather than at the next poll. */
  committed(): void;
}
