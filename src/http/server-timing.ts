/**
 * Per-request stage timings, sent as `Server-Timing`: each stage adds its duration; the header lists
 * them with the total, so slow requests can be read from any client's network panel. The header's text is built as
 * the stages close (one string per request rather than a list of pairs mapped and joined at the end).
 */
export class StageTimer {
  private readonly started = performance.now();
  private last = this.started;
  private closed = '';
  /** What the response cache needs to keep the answer (http/cached-read.ts): the collections its reads reached. */
  reach: Set<string> | null = null;
  /** Something in the answer cannot be tagged (a mutation, an error, a content version): it is not kept. */
  untagged = false;

  /** Closes the stage that ran since the previous mark. */
  mark(stage: string): void {
    const now = performance.now();
    this.closed += `${stage};dur=${(now - this.last).toFixed(2)}, `;
    this.last = now;
  }

  reached(collections: readonly string[]): void {
    const reach = (this.reach ??= new Set());
    for (const collection of collections) reach.add(collection);
  }

  uncacheable(): void {
    this.untagged = true;
  }

  header(): string {
    return `${this.closed}total;dur=${(performance.now() - this.started).toFixed(2)}`;
  }
}
