/**
 * Delivers the outbox: claims due rows with a lease (flow-deliveries.ts), runs each row's flow, and records
 * delivered, or failed with a retry after an exponential backoff (FLOWS_RETRY_BASE doubled per attempt, at most
 * FLOWS_RETRY_MAX; failed for good after FLOWS_DELIVERY_ATTEMPTS). A commit that recorded rows wakes it at once; a
 * poll every FLOWS_DELIVERY_POLL finds the rest (other instances' rows, retries, rows left by a process that died,
 * whose lease lapses). Rows pending at start are found by the first turn.
 */
import { randomUUID } from 'node:crypto';
import type { FlowsConfig } from '../config/flows-config.js';
import type { DeliveryRow, FlowDeliveriesRepository } from '../db/repositories/flow-deliveries.js';
import type { Accountability } from '../permissions/accountability.js';
import type { FlowRunner } from './flow-runner.js';
import type { FlowStore } from './flow-store.js';
import type { FlowLog } from './operations/operation-context.js';
import { deliverHook, isHookDelivery, type HookDeliveryDeps } from './hook-deliveries.js';
import { parseJson } from './safe-objects.js';

export class DeliveryWorker {
  private readonly instance = randomUUID();
  private claims = 0;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = true;

  constructor(
    private readonly repository: FlowDeliveriesRepository,
    private readonly store: FlowStore,
    private readonly runner: FlowRunner,
    private readonly config: FlowsConfig,
    private readonly log: FlowLog,
    /** Extensions' durable actions (hook-deliveries.ts); none: their rows fail as unregistered. */
    private readonly hooks: HookDeliveryDeps | null = null,
  ) {}

  start(): void {
    this.stopped = false;
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /**
   * A turn now, and waits (at most `ms`) for it and the turns asked for meanwhile: a short-lived process (the CLI)
   * delivers what its own writes recorded before it exits. What is not due yet (a retry) stays for a server.
   */
  async flush(ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    this.wake();
    while (this.running && Date.now() < deadline) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, deadline - Date.now())));
      await Promise.race([this.running.catch(() => {}), late]);
      clearTimeout(timer);
    }
  }

  /** A turn now (or right after the one running). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.running = this.turns().finally(() => {
      this.running = null;
      if (this.stopped) return;
      if (this.again) return void ((this.again = false), this.wake());
      this.timer = setTimeout(() => this.wake(), this.config.pollMs);
      this.timer.unref();
    });
  }

  /** Turns until a claim comes back short (nothing more is due now). */
  private async turns(): Promise<void> {
    try {
      for (;;) {
        if (this.stopped) return;
        const token = `${this.instance}:${++this.claims}`;
        const rows = await this.repository.claim(token, Date.now(), this.config.leaseMs, this.config.batch);
        const outcomes = await Promise.all(rows.map((row) => this.deliver(row, token)));
        // The successes of a turn are recorded together (one statement); failures each with its own retry time.
        await this.repository.delivered(
          rows.filter((_row, i) => outcomes[i]).map((row) => row.id),
          token,
          Date.now(),
        );
        if (rows.length < this.config.batch) return;
      }
    } catch (error) {
      // The database away: the next poll tries again; the rows stay in the outbox.
      this.log.warn(`Flow deliveries: ${(error as Error).message}`);
    }
  }

  private backoff(attempts: number): number {
    return Math.min(this.config.retryMaxMs, this.config.retryBaseMs * 2 ** Math.max(0, attempts - 1));
  }

  /** Runs the row's flow; true when it succeeded (recorded by the caller), else records the failure here. */
  private async deliver(row: DeliveryRow, token: string): Promise<boolean> {
    if (isHookDelivery(row.flow)) {
      const payload = parseJson(row.payload) as Record<string, unknown>;
      const error = this.hooks ? await deliverHook(this.hooks, payload) : 'Action hooks are not loaded';
      return error === null ? true : this.failed(row, token, error, false);
    }
    const flow = await this.store.get(row.flow);
    let error: string | null = null;
    if (!flow) error = 'The flow no longer exists';
    else if (flow.status !== 'active') error = 'The flow is inactive';
    else {
      const { trigger, accountability } = parseJson(row.payload) as {
        trigger: unknown;
        accountability: Accountability | null;
      };
      const result = await this.runner.run(flow, { trigger, accountability });
      if (result.error) error = result.error.message;
    }
    if (error === null) return true;
    return this.failed(row, token, error, !flow || flow.status !== 'active');
  }

  /** Records a failed try: retried after the backoff, or failed for good (`final`, or the attempts used up). */
  private async failed(row: DeliveryRow, token: string, error: string, final: boolean): Promise<false> {
    const now = Date.now();
    final ||= row.attempts >= this.config.deliveryAttempts;
    this.log.warn(`Flow delivery ${row.id} (attempt ${row.attempts}) failed: ${error}`);
    const retryAt = final ? null : now + this.backoff(row.attempts);
    await this.repository.finish(row.id, token, { ok: false, error, retryAt }, now);
    return false;
  }
}
