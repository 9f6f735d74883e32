/** The signals that stop `strata start` (one process or the primary of several workers), and where they come from. */

export type StopSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';
export const STOP_SIGNALS: readonly StopSignal[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Where stop signals come from: the process for the binary, an emitter of the caller's when run in process. Listened
 * to with `on`, not `once`: Ctrl-C signals the terminal's whole process group, so the server gets SIGINT from the
 * terminal and again from `npm start`'s wrapper that passes signals on; with `once`, the second found no listener
 * and Node's default action killed the server half-way through closing (no stop line, SQLite's -wal and -shm left).
 */
export interface SignalSource {
  on(signal: StopSignal, listener: () => void): unknown;
  removeListener(signal: StopSignal, listener: () => void): unknown;
}
