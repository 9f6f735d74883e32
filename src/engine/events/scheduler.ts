/**
 * Cron schedules (croner patterns: 5 fields, or 6 with seconds first, as Directus's `schedule` takes them) that run
 * each tick once across instances: every instance's timer fires, and only the one whose claim of (schedule id, the
 * tick's scheduled time) succeeds runs the handler (db/repositories/schedule-runs.ts). Ticks are the pattern's own
 * times, the same value on every instance whatever its timer's lateness. Timers are unref'd; `stop` ends them and
 * waits a bounded time for the handlers under way. A handler's failure is reported, never the process's.
 */
import { Cron } from 'croner';

/** Given the tick it runs for (ms since the epoch, the same on every instance). */
export type ScheduleHandler = (tick: number) => unknown;
/** Whether this instance runs `tick` (ms since the epoch) of schedule `id`. */
export type TickClaim = (id: string, tick: number) => Promise<boolean>;

/** How long `stop` waits for handlers under way before it lets them be. */
const STOP_WAIT_MS = 5000;

export class Scheduler {
  private readonly jobs = new Map<Cron, string>();
  private readonly running = new Set<Promise<unknown>>();
  private stopped = false;

  constructor(
    private readonly claim: TickClaim,
    private readonly onError: (error: unknown, id: string) => void = () => {},
  ) {}

  /** Whether `cron` is a pattern the scheduler takes. */
  static valid(cron: string): boolean {
    try {
      new Cron(cron, { paused: true }).stop();
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Runs `handler` at every tick of `cron` on one instance; `id` names the schedule across instances (the same on
   * each: an extension's name and the schedule's place in it, a flow's id). Throws on a pattern croner refuses.
   * Answers the schedule's end.
   */
  schedule(cron: string, handler: ScheduleHandler, id: string): () => void {
    if (this.stopped) return () => {};
    let due: number | undefined;
    const job = new Cron(cron, { unref: true, paused: true }, () => {
      const now = Date.now();
      const tick = due !== undefined && due <= now + 1000 ? due : Math.floor(now / 1000) * 1000;
      due = job.nextRun()?.getTime();
      this.track(id, tick, handler);
    });
    due = job.nextRun()?.getTime();
    job.resume();
    this.jobs.set(job, id);
    return () => {
      job.stop();
      this.jobs.delete(job);
    };
  }

  /** The ids of the schedules running now. */
  ids(): string[] {
    return [...this.jobs.values()];
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const job of this.jobs.keys()) job.stop();
    this.jobs.clear();
    if (!this.running.size) return;
    let timer: NodeJS.Timeout | undefined;
    const wait = new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_WAIT_MS)));
    timer?.unref();
    await Promise.race([Promise.allSettled([...this.running]), wait]);
    clearTimeout(timer);
  }

  private track(id: string, tick: number, handler: ScheduleHandler): void {
    // A tick this instance claimed is run even when `stop` came meanwhile (stop waits for it): no other instance
    // will run it.
    const run = this.claim(id, tick)
      .then((mine) => (mine ? handler(tick) : undefined))
      .catch((error: unknown) => this.onError(error, id))
      .finally(() => this.running.delete(run));
    this.running.add(run);
  }
}
