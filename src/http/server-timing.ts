/**
 * Per-request stage timings, sent as `Server-Timing`: each stage adds its duration; the header lists
 * them with the total, so slow requests can be read from any client's network panel.
 */
export class StageTimer {
  private readonly started = performance.now();
  private last = this.started;
  private readonly stages: [string, number][] = [];

  /** Closes the stage that ran since the previous mark. */
  mark(stage: string): void {
    const now = performance.now();
    this.stages.push([stage, now - this.last]);
    this.last = now;
  }

  header(): string {
    const parts = this.stages.map(([name, ms]) => `${name};dur=${ms.toFixed(2)}`);
    parts.push(`total;dur=${(performance.now() - this.started).toFixed(2)}`);
    return parts.join(', ');
  }
}
