/**
 * Where the response cache keeps answers (docs/design/response-cache.md). Every answer is tagged with the collections
 * it read; each tag has a generation, the write sequence number of the last write to that collection. An answer is
 * served only while every tag's generation is the one it was stored with, so a write drops every answer that read
 * its collection without finding them. A read notes the sequence before it runs; an answer whose tags moved past it
 * meanwhile (a write committed while the read ran) is not stored.
 */
import type { Cache } from './cache.js';

/** Every answer also carries this tag: bumping it drops everything. */
export const ALL_TAG = '*';

export interface ResponseStore {
  /**
   * The answer under `key` if it is still valid (as text, or its UTF-8 bytes), and the write sequence now (noted
   * before a miss reads).
   */
  lookup(key: string): Promise<{ body: string | Buffer | undefined; sequence: number }>;
  /**
   * The answer under `key` if this instance holds it and it is still valid, found without waiting (a store in this
   * process's memory); absent for stores that must be asked (Redis): their hits take the route's path.
   */
  peek?(key: string): Buffer | undefined;
  /** Keeps `body` under `key` tagged `tags`, unless one of them was bumped after `sequence`. */
  store(key: string, body: string, tags: readonly string[], sequence: number): Promise<void>;
  /** Drops every answer tagged with one of `tags` (before the write that did it is acknowledged). */
  bump(tags: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

export interface StoredAnswer {
  /** UTF-8, encoded once: a hit is sent without encoding the text again. */
  body: Buffer;
  tags: readonly string[];
  generations: readonly number[];
}

/** One instance's memory: bounded in entries and bytes (the `responses` Cache). */
export class MemoryResponseStore implements ResponseStore {
  private sequence = 0;
  /** Per tag, the sequence of its last bump (absent: 0). Bounded by the number of collections. */
  private readonly generations = new Map<string, number>();

  constructor(private readonly entries: Cache<string, StoredAnswer>) {}

  lookup(key: string): Promise<{ body: Buffer | undefined; sequence: number }> {
    return Promise.resolve({ body: this.peek(key), sequence: this.sequence });
  }

  peek(key: string): Buffer | undefined {
    const entry = this.entries.get(key);
    const valid = entry !== undefined && entry.tags.every((tag, i) => this.generation(tag) === entry.generations[i]);
    return valid ? entry.body : undefined;
  }

  store(key: string, body: string, tags: readonly string[], sequence: number): Promise<void> {
    const all = [ALL_TAG, ...tags];
    const generations = all.map((tag) => this.generation(tag));
    if (generations.every((generation) => generation <= sequence))
      this.entries.set(key, { body: Buffer.from(body), tags: all, generations });
    return Promise.resolve();
  }

  bump(tags: readonly string[]): Promise<void> {
    this.sequence += 1;
    for (const tag of tags) this.generations.set(tag, this.sequence);
    if (tags.includes(ALL_TAG)) this.entries.clear();
    return Promise.resolve();
  }

  async close(): Promise<void> {}

  private generation(tag: string): number {
    return this.generations.get(tag) ?? 0;
  }
}
