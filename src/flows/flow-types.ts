/** Flows and operations as stored (Directus 11's service_flows / service_operations), and a run's data chain. */
import type { Accountability } from '../permissions/accountability.js';

export type TriggerType = 'event' | 'webhook' | 'schedule' | 'manual' | 'operation';

export interface OperationDefinition {
  id: string;
  key: string;
  type: string;
  options: Record<string, unknown>;
  resolve: string | null;
  reject: string | null;
}

export interface FlowDefinition {
  id: string;
  name: string;
  status: 'active' | 'inactive';
  trigger: TriggerType | null;
  options: Record<string, unknown>;
  /** The first operation's id (null: the flow runs nothing). */
  operation: string | null;
  operations: ReadonlyMap<string, OperationDefinition>;
}

/** The data chain: `$trigger`, `$last`, `$accountability`, `$env` and each operation's result under its key. */
export type DataChain = Record<string, unknown>;

/** How a run ended: its last value, and the error that ended it when an operation failed with no reject path. */
export interface RunResult {
  last: unknown;
  data: DataChain;
  error: Error | null;
}

export interface RunInput {
  trigger: unknown;
  /** Whose action set the flow off (null: nobody's, as a schedule; item operations then have full access). */
  accountability: Accountability | null;
}

export const FLOW_KEYS = ['$trigger', '$last', '$accountability', '$env'] as const;
