/**
 * Retention of the audit trail: every RETENTION_SCHEDULE, activity older than ACTIVITY_RETENTION (with its
 * revisions) and revisions older than REVISIONS_RETENTION are deleted, RETENTION_BATCH rows per transaction, off the
 * request path (a timer that does not keep the process alive). Across instances the prune runs under one named
 * database lock: instances that wake together take turns, and the ones after the first find nothing left to delete,
 * so the work is done once. A failed prune is logged and tried again at the next tick.
 */
import type { Clock } from '../config/clock.js';
import type { RetentionConfig } from '../config/retention-config.js';
import type { Database } from '../db/connection.js';
import { ActivityRepository } from '../db/repositories/activity.js';

export interface PruneResult {
  activity: number;
  revisions: number;
}

const LOCK = 'strata-audit-retention';

export class AuditRetention {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<PruneResult> | null = null;
  private stopped = false;
  private readonly repository: ActivityRepository;

  constructor(
    private readonly db: Database,
    private readonly config: RetentionConfig,
    private readonly clock: Clock,
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    this.repository = new ActivityRepository(db);
  }

  /** Starts the schedule when RETENTION_ENABLED; the first prune runs one period after start. */
  start(): void {
    if (!this.config.enabled || this.timer) return;
    this.timer = setInterval(() => {
      this.prune().catch(this.onError);
    }, this.config.everyMs);
    this.timer.unref();
  }

  /** Stops the schedule and waits for a prune under way (it stops between batches). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => {});
  }

  /** One prune now (the schedule's tick); a prune already under way is joined, not doubled. */
  prune(): Promise<PruneResult> {
    this.running ??= this.db
      .withLock(LOCK, () => this.pruneAll())
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  private async pruneAll(): Promise<PruneResult> {
    const now = this.clock.now();
    const result: PruneResult = { activity: 0, revisions: 0 };
    const { batch } = this.config;
    const activityBefore = new Date(now - this.config.activityMs);
    const revisionsBefore = new Date(now - this.config.revisionsMs);
    for (let n = batch; n === batch && !this.stopped;) {
      n = await this.repository.pruneRevisions(revisionsBefore, batch);
      result.revisions += n;
      await yieldTurn();
    }
    for (let n = batch; n === batch && !this.stopped;) {
      n = await this.repository.pruneActivity(activityBefore, batch);
      result.activity += n;
      await yieldTurn();
    }
    return result;
  }
}

/** Lets requests run between batches. */
function yieldTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
