/**
 * Flows at run time: the store of flows, the runner, the outbox and its delivery worker, and the triggers an HTTP
 * request sets off (webhook, manual). Built once per instance (app/app-context.ts); the event and schedule triggers
 * reach it through the writer's outbox and the scheduler.
 */
import type { Config } from '../config/config.js';
import type { EventEmitter } from '../engine/events/event-emitter.js';
import type { Scheduler } from '../engine/events/scheduler.js';
import type { Database } from '../db/connection.js';
import type { Mailer } from '../mail/mailer.js';
import { FlowDeliveriesRepository, type DeliveryRow } from '../db/repositories/flow-deliveries.js';
import type { ItemsService } from '../engine/read/items-service.js';
import type { ItemsWriter } from '../engine/write/items-writer.js';
import { ForbiddenError, InvalidPayloadError, RouteNotFoundError } from '../errors/catalogue.js';
import type { Accountability } from '../permissions/accountability.js';
import type { SchemaOverview } from '../schema/types.js';
import { DeliveryWorker } from './delivery-worker.js';
import { FlowOutbox } from './flow-outbox.js';
import { FlowRunner } from './flow-runner.js';
import { FlowStore } from './flow-store.js';
import { FlowTriggers } from './flow-triggers.js';
import type { FlowDefinition, RunResult } from './flow-types.js';
import type { FlowLog } from './operations/operation-context.js';
import { valueAt } from './templates.js';

export interface FlowsDeps {
  config: Config;
  db: Database;
  items: ItemsService;
  writer: ItemsWriter;
  schema: () => SchemaOverview;
  log: FlowLog;
  /** The mail operation's mailer. */
  mailer?: Mailer;
  /** Where filter event flows are registered (none: no filter flows). */
  events?: EventEmitter;
  /** Where schedule flows are registered (none: no schedule flows). */
  scheduler?: Scheduler;
}

/** What an incoming request gives a webhook or manual flow. */
export interface IncomingTrigger {
  method: string;
  path: string;
  query: Record<string, unknown>;
  body: unknown;
  headers: Record<string, unknown>;
}

const PRUNE_BATCH = 500;

/** Headers a flow never sees: the caller's credentials. */
const HIDDEN_HEADERS = new Set(['authorization', 'cookie']);

export class FlowsService {
  readonly store: FlowStore;
  readonly runner: FlowRunner;
  readonly deliveries: FlowDeliveriesRepository;
  private readonly worker: DeliveryWorker;
  private readonly outbox: FlowOutbox;
  private readonly triggers: FlowTriggers;
  private stopPrune: (() => void) | undefined;

  constructor(private readonly deps: FlowsDeps) {
    this.store = new FlowStore(deps.db);
    this.runner = new FlowRunner(this.store, {
      config: deps.config,
      items: deps.items,
      writer: deps.writer,
      schema: deps.schema,
      log: deps.log,
      ...(deps.mailer ? { mailer: deps.mailer } : {}),
    });
    this.deliveries = new FlowDeliveriesRepository(deps.db);
    const hooks = deps.events
      ? { events: deps.events, db: deps.db, schema: deps.schema, timeoutMs: deps.config.flows.runTimeoutMs }
      : null;
    this.worker = new DeliveryWorker(this.deliveries, this.store, this.runner, deps.config.flows, deps.log, hooks);
    this.outbox = new FlowOutbox(this.store, deps.db.dialect, () => this.worker.wake(), deps.events ?? null);
    deps.writer.useOutbox(this.outbox);
    this.triggers = new FlowTriggers(this.store, this.runner, deps.events ?? null, deps.scheduler ?? null, deps.log);
  }

  /** Reads the flows, then delivers what the outbox holds (rows left by an earlier run included). */
  async start(): Promise<void> {
    await this.outbox.refresh().catch((error: Error) => this.deps.log.warn(`Flows: ${error.message}`));
    await this.triggers.register().catch((error: Error) => this.deps.log.warn(`Flows: ${error.message}`));
    this.worker.start();
    // Once across instances (the scheduler's claim of each tick).
    this.stopPrune = this.deps.scheduler?.schedule(
      this.deps.config.flows.pruneCron,
      () => this.prune(),
      'flows:delivery-retention',
    );
  }

  /** Deletes the delivered rows older than FLOWS_DELIVERY_RETENTION, 500 per statement; how many. */
  async prune(): Promise<number> {
    const before = Date.now() - this.deps.config.flows.retentionMs;
    let total = 0;
    for (let n = PRUNE_BATCH; n === PRUNE_BATCH; total += n)
      n = await this.deliveries.pruneDelivered(before, PRUNE_BATCH);
    return total;
  }

  /** Delivers what is due now and waits for it, at most `ms` (the CLI, before it closes). */
  flush(ms: number): Promise<void> {
    return this.worker.flush(ms);
  }

  async stop(): Promise<void> {
    this.stopPrune?.();
    this.triggers.clear();
    await this.worker.stop();
  }

  /** Flows or operations were written, here or on another instance. */
  changed(): void {
    this.store.changed();
  }

  /** Runs a flow outside the outbox (a schedule tick, a filter event); never throws. */
  run(flow: FlowDefinition, trigger: unknown, accountability: Accountability | null): Promise<RunResult> {
    return this.runner.run(flow, { trigger, accountability });
  }

  /**
   * `GET|POST /flows/trigger/:id`: a webhook flow of that method, or (POST) a manual flow with `{collection, keys}`.
   * Async flows answer at once (undefined); others with their `return` value (`$last` by default, `$all`, or a path).
   */
  async trigger(id: string, incoming: IncomingTrigger, accountability: Accountability): Promise<unknown> {
    const flow = await this.store.get(id);
    if (!flow || flow.status !== 'active') throw new ForbiddenError();
    const headers = Object.create(null) as Record<string, unknown>;
    for (const [name, value] of Object.entries(incoming.headers))
      if (!HIDDEN_HEADERS.has(name.toLowerCase())) headers[name] = value;
    let trigger: unknown;
    if (flow.trigger === 'webhook') {
      const method = String(flow.options.method ?? 'GET').toUpperCase();
      if (method !== incoming.method) throw new ForbiddenError();
      trigger = { path: incoming.path, query: incoming.query, body: incoming.body, method: incoming.method, headers };
    } else if (flow.trigger === 'manual' && incoming.method === 'POST') {
      trigger = this.manualTrigger(flow, incoming, accountability, headers);
    } else throw new ForbiddenError();
    const running = this.runner.run(flow, { trigger, accountability });
    if (flow.options.async === true) {
      void running.then((r) => r.error && this.deps.log.warn(`Flow ${flow.id} failed: ${r.error.message}`));
      return undefined;
    }
    const result = await running;
    const answer = flow.options.return;
    if (answer === '$all') return result.data;
    if (typeof answer === 'string' && answer !== '' && answer !== '$last') return valueAt(result.data, answer);
    return result.last;
  }

  private manualTrigger(
    flow: FlowDefinition,
    incoming: IncomingTrigger,
    accountability: Accountability,
    headers: Record<string, unknown>,
  ): unknown {
    // As Directus: a manual flow is run by a signed-in user, from one of the collections it lists.
    if (!accountability.user && !accountability.admin) throw new ForbiddenError();
    const body = (incoming.body ?? {}) as Record<string, unknown>;
    const collections = Array.isArray(flow.options.collections) ? flow.options.collections.map(String) : [];
    if (typeof body.collection !== 'string' || !collections.includes(body.collection))
      throw new InvalidPayloadError(`"collection" must be one of the flow's collections`);
    return { path: incoming.path, query: incoming.query, body, method: 'POST', headers };
  }

  /** `GET /flows/deliveries`: the outbox's log, newest first. */
  list(query: Record<string, unknown>): Promise<DeliveryRow[]> {
    const limit = Math.min(Math.max(Number(query.limit) || 100, 1), 1000);
    const offset = Math.max(Number(query.offset) || 0, 0);
    const status = typeof query.status === 'string' ? query.status : undefined;
    const flow = typeof query.flow === 'string' ? query.flow : undefined;
    return this.deliveries.list({ status, flow }, limit, offset);
  }

  async delivery(id: string): Promise<DeliveryRow> {
    const row = await this.deliveries.get(id);
    if (!row) throw new RouteNotFoundError(`/flows/deliveries/${id}`);
    return row;
  }

  /** `POST /flows/deliveries/:id/replay`: due again now, with fresh attempts. */
  async replay(id: string): Promise<DeliveryRow> {
    if (!(await this.deliveries.replay(id, Date.now()))) throw new RouteNotFoundError(`/flows/deliveries/${id}`);
    // Read before the worker may claim it: the answer shows the row as replayed.
    const row = await this.delivery(id);
    this.worker.wake();
    return row;
  }
}
