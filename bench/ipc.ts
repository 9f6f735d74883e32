/**
 * The bench's child processes (Strata, the ceiling) and how the bench talks to them: requests over the IPC channel,
 * each answered or timed out, so that no step can hang. A child leaves when its parent goes away.
 */
import { fork, type ChildProcess } from 'node:child_process';

interface Request {
  id: number;
  op: string;
  arg?: unknown;
}

type Answer = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };

export type Handlers = Record<string, (arg: any) => unknown>;

/** A forked child answering requests; `stop()` ends it by its PID (SIGTERM, then SIGKILL). */
export class Child {
  private next = 1;
  private readonly pending = new Map<
    number,
    { resolve(v: unknown): void; reject(e: Error): void; timer: NodeJS.Timeout }
  >();
  private exited: Promise<void>;

  private constructor(
    readonly name: string,
    private readonly proc: ChildProcess,
  ) {
    proc.on('message', (message: Answer) => {
      const waiting = this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id);
      clearTimeout(waiting.timer);
      if (message.ok) waiting.resolve(message.result);
      else waiting.reject(new Error(`${name}: ${message.error}`));
    });
    this.exited = new Promise((resolve) => {
      proc.once('exit', (code, signal) => {
        for (const [, waiting] of this.pending) {
          clearTimeout(waiting.timer);
          waiting.reject(new Error(`${name} exited (${signal ?? code})`));
        }
        this.pending.clear();
        resolve();
      });
    });
  }

  /** Forks `entry` (plain JavaScript, so the child's memory is its own and not a loader's) and waits until it answers. */
  static async start(
    name: string,
    entry: string,
    env: Record<string, string>,
    options: { execArgv?: string[]; timeoutMs?: number } = {},
  ): Promise<Child> {
    const timeoutMs = options.timeoutMs ?? 60_000;
    const proc = fork(entry, [], {
      env: { ...process.env, ...env },
      execArgv: options.execArgv ?? [],
      // Structured clone: statement parameters keep their types (bigint, Date, Buffer) on the way to the ceiling.
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const child = new Child(name, proc);
    try {
      await child.call('ping', undefined, timeoutMs);
    } catch (error) {
      await child.stop();
      throw error;
    }
    return child;
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  call<T = unknown>(op: string, arg?: unknown, timeoutMs = 60_000): Promise<T> {
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      if (this.proc.exitCode !== null || this.proc.signalCode !== null) {
        reject(new Error(`${this.name} is not running`));
        return;
      }
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${this.name}: no answer to ${op} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      this.proc.send({ id, op, arg } satisfies Request);
    });
  }

  async stop(graceMs = 5_000): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null || this.proc.pid === undefined) return;
    process.kill(this.proc.pid, 'SIGTERM');
    const killer = setTimeout(() => {
      if (this.proc.exitCode === null && this.proc.signalCode === null && this.proc.pid !== undefined)
        process.kill(this.proc.pid, 'SIGKILL');
    }, graceMs);
    await this.exited;
    clearTimeout(killer);
  }
}

/** Child side: answers the parent's requests with `handlers`; leaves when the parent disconnects or asks it to stop. */
export function answerParent(handlers: Handlers, onExit: () => Promise<void>): void {
  if (!process.send) throw new Error('this file runs as a child of bench/run.ts');
  const all: Handlers = { ping: () => 'pong', ...handlers };
  process.on('message', async (message: Request) => {
    const handler = all[message.op];
    let answer: Answer;
    try {
      if (!handler) throw new Error(`unknown request ${message.op}`);
      answer = { id: message.id, ok: true, result: await handler(message.arg) };
    } catch (error) {
      answer = { id: message.id, ok: false, error: error instanceof Error ? error.message : String(error) };
    }
    process.send!(answer);
  });
  let leaving = false;
  const leave = () => {
    if (leaving) return;
    leaving = true;
    // Bounded: a close that hangs does not keep the process alive.
    setTimeout(() => process.exit(1), 3_000).unref();
    onExit().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('disconnect', leave);
  process.on('SIGTERM', leave);
  process.on('SIGINT', leave);
}

/**
 * The highest resident set size seen since the last reset, sampled every 20 ms (cheap: one syscall), and the CPU
 * time the process used since then.
 */
export class RssPeak {
  private peak = process.memoryUsage.rss();
  private cpu = process.cpuUsage();

  constructor() {
    setInterval(() => this.sample(), 20).unref();
  }

  reset(): void {
    this.peak = process.memoryUsage.rss();
    this.cpu = process.cpuUsage();
  }

  read(): { peakMb: number; maxRssMb: number; cpuMs: number } {
    this.sample();
    const cpu = process.cpuUsage(this.cpu);
    // maxRSS (KiB): the kernel's high-water mark over the process's whole life, for the summary.
    return {
      peakMb: this.peak / 1_048_576,
      maxRssMb: process.resourceUsage().maxRSS / 1024,
      cpuMs: (cpu.user + cpu.system) / 1000,
    };
  }

  private sample(): void {
    const rss = process.memoryUsage.rss();
    if (rss > this.peak) this.peak = rss;
  }
}
