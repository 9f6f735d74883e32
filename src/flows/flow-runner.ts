/**
 * Runs a flow: from its first operation, each operation's options filled from the data chain (templates.ts), its
 * result stored under its key and as `$last`, then its resolve (success) or reject (failure) operation. A failure with
 * no reject operation ends the run as failed. Bounded: FLOWS_MAX_OPERATIONS operations (flows set off by a trigger
 * operation count in the same run) and FLOWS_RUN_TIMEOUT for the whole run.
 */
import type { Accountability } from '../permissions/accountability.js';
import type { FlowStore } from './flow-store.js';
import type { DataChain, FlowDefinition, RunInput, RunResult } from './flow-types.js';
import { OPERATIONS } from './operations/index.js';
import { OperationError, type OperationServices } from './operations/operation-context.js';
import { render } from './templates.js';

export type RunnerServices = Omit<OperationServices, 'runFlow'>;

/** What one run (and the flows it sets off) shares: its operation count and its deadline. */
interface RunBudget {
  operations: number;
  signal: AbortSignal;
}

function errorValue(error: unknown): unknown {
  if (error instanceof OperationError) return error.value ?? { message: error.message };
  if (error instanceof Error && 'code' in error) return { message: error.message, code: error.code };
  return { message: error instanceof Error ? error.message : String(error) };
}

export class FlowRunner {
  constructor(
    private readonly store: FlowStore,
    private readonly services: RunnerServices,
  ) {}

  /** One run of `flow`, bounded in time; never throws (a failure is the result's `error`). */
  async run(flow: FlowDefinition, input: RunInput): Promise<RunResult> {
    const controller = new AbortController();
    const timeoutMs = this.services.config.flows.runTimeoutMs;
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    const budget: RunBudget = { operations: 0, signal: controller.signal };
    try {
      return await Promise.race([
        this.runWithin(flow, input, budget),
        new Promise<RunResult>((resolve) =>
          controller.signal.addEventListener('abort', () =>
            resolve({ last: null, data: {}, error: new Error(`The flow ran longer than ${timeoutMs}ms`) }),
          ),
        ),
      ]);
    } finally {
      clearTimeout(timer);
      controller.abort();
    }
  }

  private environment(): Record<string, string> {
    const env = Object.create(null) as Record<string, string>;
    for (const name of this.services.config.flows.envAllowList) {
      const value = process.env[name];
      if (value !== undefined) env[name] = value;
    }
    return env;
  }

  private async runWithin(flow: FlowDefinition, input: RunInput, budget: RunBudget): Promise<RunResult> {
    const data: DataChain = Object.create(null) as DataChain;
    data.$trigger = input.trigger;
    data.$last = input.trigger;
    data.$accountability = input.accountability;
    data.$env = this.environment();
    const secret = typeof flow.options.secret === 'string' && flow.options.secret ? flow.options.secret : null;
    const services: OperationServices = {
      ...this.services,
      runFlow: (id, payload, accountability) => this.runNested(id, payload, accountability, budget),
    };
    let next = flow.operation;
    while (next) {
      const operation = flow.operations.get(next);
      if (!operation) break;
      if (++budget.operations > this.services.config.flows.maxOperations)
        return { last: data.$last, data, error: new Error('The run reached FLOWS_MAX_OPERATIONS') };
      if (budget.signal.aborted) return { last: data.$last, data, error: new Error('The run was stopped') };
      const handler = OPERATIONS.get(operation.type);
      try {
        if (!handler) throw new OperationError(`Unknown operation type "${operation.type}"`, null);
        const options = render(operation.options, data) as Record<string, unknown>;
        const context = { data, accountability: input.accountability, signal: budget.signal, flowSecret: secret };
        const result = await handler(options, { ...context, services });
        data[operation.key] = result ?? null;
        data.$last = result ?? null;
        next = operation.resolve;
      } catch (error) {
        const value = errorValue(error);
        data[operation.key] = value;
        data.$last = value;
        if (!operation.reject)
          return { last: value, data, error: error instanceof Error ? error : new Error('Failed') };
        next = operation.reject;
      }
    }
    return { last: data.$last, data, error: null };
  }

  /** A trigger operation: the target flow (trigger `operation`, active) with the payload as its `$trigger`. */
  private async runNested(
    id: string,
    payload: unknown,
    accountability: Accountability | null,
    budget: RunBudget,
  ): Promise<unknown> {
    const flow = await this.store.get(id);
    if (!flow || flow.status !== 'active' || flow.trigger !== 'operation')
      throw new OperationError(`No active flow "${id}" with the "Another flow" trigger`, null);
    const result = await this.runWithin(flow, { trigger: payload, accountability }, budget);
    if (result.error) throw new OperationError(result.error.message, result.last);
    return result.last;
  }
}
