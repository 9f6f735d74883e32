/**
 * The triggers that reach flows through the machinery extensions use: `event` flows of the `filter` type as filters
 * of the event emitter (inside the write's transaction: a failed run refuses the write, an object `$last` becomes the
 * payload), and `schedule` flows on the scheduler (each tick once across instances). Registered again whenever the
 * flows change. Action event flows go through the outbox instead (flow-outbox.ts).
 */
import type { Executor } from '../db/connection.js';
import type { EventEmitter, EventMeta, EventContext } from '../engine/events/event-emitter.js';
import type { Scheduler } from '../engine/events/scheduler.js';
import { Scheduler as SchedulerClass } from '../engine/events/scheduler.js';
import { flowType } from './event-matching.js';
import type { FlowRunner } from './flow-runner.js';
import type { FlowStore } from './flow-store.js';
import type { FlowDefinition } from './flow-types.js';
import type { FlowLog } from './operations/operation-context.js';

const ACTIONS = ['create', 'update', 'delete'];

function list(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  if (typeof value === 'string' && value !== '') return value.split(',').map((s) => s.trim());
  return [];
}

/** The emitter's event names a filter flow listens to: `<collection>.items.<action>`, or a system scope as named. */
export function filterEvents(flow: FlowDefinition): string[] {
  const names: string[] = [];
  for (const scope of list(flow.options.scope)) {
    const items = /^items\.(create|update|delete)$/.exec(scope);
    if (items) for (const collection of list(flow.options.collections)) names.push(`${collection}.items.${items[1]}`);
    else if (ACTIONS.includes(scope.split('.')[1] ?? '')) names.push(scope);
  }
  return names;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class FlowTriggers {
  private undo: (() => void)[] = [];

  constructor(
    private readonly store: FlowStore,
    private readonly runner: FlowRunner,
    private readonly events: EventEmitter | null,
    private readonly scheduler: Scheduler | null,
    private readonly log: FlowLog,
  ) {
    // A failed read (the database away, a read thread ended) keeps the registrations as they were until the next
    // change; it is never an unhandled rejection.
    store.onChange(
      () =>
        void this.register().catch((error: Error) => this.log.warn(`Flows: triggers not read again: ${error.message}`)),
    );
  }

  /** Drops every registration and makes them again from the active flows. */
  async register(): Promise<void> {
    const flows = [...(await this.store.all()).values()].filter((flow) => flow.status === 'active');
    this.clear();
    for (const flow of flows) {
      if (flow.trigger === 'event' && flowType(flow) === 'filter') this.registerFilter(flow);
      if (flow.trigger === 'schedule') this.registerSchedule(flow);
    }
  }

  /** The flow as stored now; `executor`: a write's transaction, to read it on that connection when not held. */
  private async current(id: string, executor?: Executor): Promise<FlowDefinition | undefined> {
    const flow = (await this.store.all(executor)).get(id);
    return flow?.status === 'active' ? flow : undefined;
  }

  clear(): void {
    for (const undo of this.undo) undo();
    this.undo = [];
  }

  private registerFilter(flow: FlowDefinition): void {
    if (!this.events) return;
    for (const event of filterEvents(flow)) {
      const handler = async (payload: unknown, meta: EventMeta, context: EventContext) => {
        // The flow as it is now: a change of the flows re-registers them only after it has read them again.
        const current = await this.current(flow.id, context.database ?? undefined);
        if (!current || current.trigger !== 'event' || flowType(current) !== 'filter') return undefined;
        if (!filterEvents(current).includes(event)) return undefined;
        const trigger = { event, payload, ...meta };
        const result = await this.runner.run(current, { trigger, accountability: context.accountability });
        if (result.error) throw new Error(result.error.message);
        if (result.last === trigger) return undefined;
        if (Array.isArray(payload) ? Array.isArray(result.last) : isPlainObject(result.last)) return result.last;
        return undefined;
      };
      this.undo.push(this.events.onFilter(event, handler));
    }
  }

  private registerSchedule(flow: FlowDefinition): void {
    const cron = typeof flow.options.cron === 'string' ? flow.options.cron : '';
    if (!this.scheduler) return;
    if (!SchedulerClass.valid(cron)) return this.log.warn(`Flow ${flow.id}: "${cron}" is not a cron pattern`);
    const run = async (tick: number) => {
      const current = await this.current(flow.id);
      if (!current || current.trigger !== 'schedule') return;
      const trigger = { timestamp: new Date(tick).toISOString() };
      const result = await this.runner.run(current, { trigger, accountability: null });
      if (result.error) this.log.warn(`Scheduled flow ${flow.id} failed: ${result.error.message}`);
    };
    this.undo.push(this.scheduler.schedule(cron, run, `flow:${flow.id}`));
  }
}
