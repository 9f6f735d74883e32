/**
 * When each caller last wrote, so their next reads wait for a replica that has replayed it. Bounded: the oldest
 * marks are dropped past `cap`, and a dropped mark raises a floor every caller's reads then respect (never weaker).
 * Times are `performance.now()` milliseconds.
 */
export class WriteMarks {
  private readonly marks = new Map<string, number>();
  /** Any write of this process: what work without a caller (background, start-up) must see. */
  private lastAny = 0;
  /** The newest mark dropped for room. */
  private floor = 0;

  constructor(private readonly cap = 10_000) {}

  wrote(caller: string | undefined, at: number): void {
    this.lastAny = Math.max(this.lastAny, at);
    if (caller === undefined) return;
    this.marks.delete(caller);
    this.marks.set(caller, at);
    if (this.marks.size > this.cap) {
      const [oldest, time] = this.marks.entries().next().value as [string, number];
      this.marks.delete(oldest);
      this.floor = Math.max(this.floor, time);
    }
  }

  /** The time a replica must have caught up to, for a read by `caller` to see every write it made. */
  mustSee(caller: string | undefined): number {
    if (caller === undefined) return this.lastAny;
    return Math.max(this.floor, this.marks.get(caller) ?? 0);
  }

  /** Drops marks no replica still allowed to serve can be behind (`before`: the oldest position a served replica has). */
  forgetBefore(before: number): void {
    for (const [caller, time] of this.marks) {
      if (time > before) break;
      this.marks.delete(caller);
    }
  }
}
