/**
 * How long to wait before replacing a worker that died: at once after one that served a while, doubling (up to
 * MAX_MS) after each that died soon after it started, so a worker that cannot start does not spin the machine.
 */
const FIRST_MS = 100;
const MAX_MS = 30_000;
/** A worker that lived this long served: the next death starts the backoff afresh. */
const SETTLED_MS = 10_000;

export class RestartBackoff {
  private early = 0;

  /** The delay before replacing a worker that lived `livedMs`. */
  next(livedMs: number): number {
    if (livedMs >= SETTLED_MS) this.early = 0;
    const delay = Math.min(MAX_MS, FIRST_MS * 2 ** this.early);
    this.early += 1;
    return delay;
  }
}
