/** The signals that stop `strata start` (one process or the primary of several workers), and where they come from. */

export type StopSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';
export const STOP_SIGNALS: readonly StopSignal[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Where stop signals come from: the process for the binary (`processStopSignals`), an emitter of the caller's when
 * run in process. Listened to with `on`, not `once`: Ctrl-C signals the terminal's whole process group, so the server
 * gets SIGINT from the terminal and again from `npm start`'s wrapper that passes signals on (a worker also from its
 * primary); with `once`, the second found no listener and Node's default action killed the server half-way through
 * closing (no stop line, SQLite's -wal and -shm left).
 */
export interface SignalSource {
  on(signal: StopSignal, listener: () => void): unknown;
  removeListener(signal: StopSignal, listener: () => void): unknown;
}

const ignore = () => {};

/**
 * The process's own signals, caught for good once `strata start` has listened: between the moment a stopped server
 * stops listening and the moment its process exits, a further Ctrl-C (or the primary's signal reaching a worker that
 * stopped on the terminal's) would otherwise find no listener, and Node's default action would end the process with
 * that signal instead of its exit code. Commands that never listen (bootstrap, import) keep Node's default.
 */
export function processStopSignals(): SignalSource {
  return {
    on(signal, listener) {
      if (!process.listeners(signal).includes(ignore)) process.on(signal, ignore);
      return process.on(signal, listener);
    },
    removeListener: (signal, listener) => process.removeListener(signal, listener),
  };
}

/**
 * The first stop signal from a source, while listening (the ones after it are ignored), or a stop asked for by the
 * process itself (`request`). Listening may begin before the server can stop: `first` is awaited once it can.
 */
export class StopRequest {
  readonly first: Promise<StopSignal>;
  private answer!: (signal: StopSignal) => void;
  private signal: StopSignal | null = null;
  private readonly listeners = STOP_SIGNALS.map((signal) => [signal, () => this.request(signal)] as const);
  private listening = false;

  constructor(private readonly source: SignalSource) {
    this.first = new Promise((resolve) => (this.answer = resolve));
  }

  /** Whether a stop was asked for. */
  get requested(): boolean {
    return this.signal !== null;
  }

  request(signal: StopSignal): void {
    if (this.signal) return;
    this.signal = signal;
    this.answer(signal);
  }

  listen(): void {
    if (this.listening) return;
    this.listening = true;
    for (const [signal, listener] of this.listeners) this.source.on(signal, listener);
  }

  unlisten(): void {
    if (!this.listening) return;
    this.listening = false;
    for (const [signal, listener] of this.listeners) this.source.removeListener(signal, listener);
  }
}
