/**
 * Per-request stage timings, sent as `Server-Timing`: each stage adds its duration; the header lists
 * them with the total, so slow requests can be read from any client's network panel. The header's text is built as
 * the stages close (one string per request rather than a list of pairs mapped and joined at the end).
 */
export class StageTimer {
  private readonly started = performance.now();
  private last = this.started;
  private closed = '';

  /** Closes the stage that ran since the previous mark. */
  mark(stage: string): void {
    const now = performance.now();
    this.closed += `${stage};dur=${(now - this.last).toFixed(2)}, `;
    this.last = now;
  }

  header(): string {
    return `${this.closed}total;dur=${(performance.now() - this.started).toFixed(2)}`;
  }
}
