/**
 * The flows as this instance knows them: read whole (flows and operations are few) and kept until a write of
 * service_flows / service_operations here or on another instance (the `flows` change over the bus) drops them.
 */
import type { Database, Executor } from '../db/connection.js';
import type { FlowDefinition, OperationDefinition, TriggerType } from './flow-types.js';
import { asRecord } from './safe-objects.js';

const TRIGGERS = new Set(['event', 'webhook', 'schedule', 'manual', 'operation']);

function text(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}

export class FlowStore {
  private loaded: Promise<Map<string, FlowDefinition>> | null = null;
  private generation = 0;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly db: Database) {}

  /**
   * Every flow (active or not) by id. `executor`: where to read them when they are not held (a write's transaction
   * reads them on its own connection: on SQLite with reads on the writer, another connection would wait for it);
   * such a read is not kept.
   */
  all(executor?: Executor): Promise<Map<string, FlowDefinition>> {
    // A transaction's read is not kept: it may see its own uncommitted flows, or roll back.
    if (!this.loaded && executor) return this.load(executor);
    if (!this.loaded) {
      const generation = this.generation;
      const loading = this.load(this.db);
      this.loaded = loading;
      // A failed read is tried again by the next caller; a read overtaken by a change is not kept.
      loading.then(
        () => generation !== this.generation && this.loaded === loading && (this.loaded = null),
        () => this.loaded === loading && (this.loaded = null),
      );
    }
    return this.loaded;
  }

  async get(id: string): Promise<FlowDefinition | undefined> {
    return (await this.all()).get(id);
  }

  async active(trigger: TriggerType, executor?: Executor): Promise<FlowDefinition[]> {
    return [...(await this.all(executor)).values()].filter(
      (flow) => flow.status === 'active' && flow.trigger === trigger,
    );
  }

  /** Flows or operations were written (here or elsewhere). */
  changed(): void {
    this.generation++;
    this.loaded = null;
    for (const listener of this.listeners) listener();
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  private async load(executor: Executor): Promise<Map<string, FlowDefinition>> {
    const quote = (name: string) => this.db.dialect.sql.quote(name);
    const flows = await executor.query(`select * from ${quote('service_flows')}`);
    const operations = await executor.query(`select * from ${quote('service_operations')}`);
    const byFlow = new Map<string, Map<string, OperationDefinition>>();
    for (const row of operations) {
      const flow = String(row.flow);
      if (!byFlow.has(flow)) byFlow.set(flow, new Map());
      byFlow.get(flow)!.set(String(row.id), {
        id: String(row.id),
        key: String(row.key),
        type: String(row.type),
        options: asRecord(row.options),
        resolve: text(row.resolve),
        reject: text(row.reject),
      });
    }
    const out = new Map<string, FlowDefinition>();
    for (const row of flows) {
      const trigger = text(row.trigger);
      out.set(String(row.id), {
        id: String(row.id),
        name: String(row.name ?? ''),
        status: row.status === 'inactive' ? 'inactive' : 'active',
        trigger: trigger && TRIGGERS.has(trigger) ? (trigger as TriggerType) : null,
        options: asRecord(row.options),
        operation: text(row.operation),
        operations: byFlow.get(String(row.id)) ?? new Map(),
      });
    }
    return out;
  }
}
