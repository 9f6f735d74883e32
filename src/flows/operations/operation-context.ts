/** What an operation is handed, and how it fails with a value for the data chain (the reject path's `$last`). */
import type { Config } from '../../config/config.js';
import type { Mailer } from '../../mail/mailer.js';
import type { ItemsService } from '../../engine/read/items-service.js';
import type { ItemsWriter } from '../../engine/write/items-writer.js';
import type { Accountability } from '../../permissions/accountability.js';
import type { SchemaOverview } from '../../schema/types.js';
import type { DataChain } from '../flow-types.js';

export interface FlowLog {
  info(message: string): void;
  warn(message: string): void;
}

export interface OperationServices {
  config: Config;
  items: ItemsService;
  writer: ItemsWriter;
  schema: () => SchemaOverview;
  log: FlowLog;
  /** The mail operation's way out (none: it fails as mail not set up). */
  mailer?: Mailer;
  /** Runs another flow (trigger `operation`) within this run's bounds; its `$last`. */
  runFlow(flowId: string, payload: unknown, accountability: Accountability | null): Promise<unknown>;
}

export interface OperationContext {
  data: DataChain;
  /** The trigger's accountability (null: none, as a schedule). */
  accountability: Accountability | null;
  /** Aborted when the run's time is up. */
  signal: AbortSignal;
  /** The flow's own signing secret (options.secret), if any. */
  flowSecret: string | null;
  services: OperationServices;
}

export type OperationHandler = (options: Record<string, unknown>, context: OperationContext) => Promise<unknown>;

/** An operation's failure, with the value the reject path sees as `$last`. */
export class OperationError extends Error {
  constructor(
    message: string,
    readonly value: unknown,
  ) {
    super(message);
  }
}
