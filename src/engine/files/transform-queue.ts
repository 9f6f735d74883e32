/**
 * Bounds the image transforms that run at once (ASSETS_TRANSFORM_MAX_CONCURRENT): the others wait their turn, up to
 * a bounded queue, beyond which a transform is refused at once (503) rather than holding a request and its memory.
 * A variant asked for again while it is being made waits for the same work.
 */
import { ServiceUnavailableError } from '../../errors/catalogue.js';

export class TransformQueue {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(
    private readonly maxConcurrent: number,
    private readonly maxWaiting = maxConcurrent * 64,
  ) {}

  /** Runs `work` for `key` in its turn, once however many ask for the same key meanwhile. */
  once(key: string, work: () => Promise<void>): Promise<void> {
    const current = this.inFlight.get(key);
    if (current) return current;
    const done = this.run(work).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, done);
    return done;
  }

  private async run(work: () => Promise<void>): Promise<void> {
    if (this.running >= this.maxConcurrent) {
      if (this.waiting.length >= this.maxWaiting)
        throw new ServiceUnavailableError('assets', 'Too many image transforms are waiting');
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.running++;
    try {
      await work();
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }
}
