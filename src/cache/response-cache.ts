/**
 * Answers from memory (docs/design/response-cache.md): what decides a read's answer becomes its key (the request,
 * the caller's permission set — their user only where rules or the query name $CURRENT_* —, the schema); the
 * collections the read reached become its tags; a committed write bumps its collections' tags before it is
 * acknowledged. The store (memory or Redis) failing never fails a request: the read runs as if uncached.
 */
import { createHash } from 'node:crypto';
import type { Accountability } from '../permissions/accountability.js';
import type { PermissionSet } from '../permissions/permission-store.js';
import type { SchemaOverview } from '../schema/types.js';
import type { ResponseStore } from './response-store.js';

export interface ResponseCacheDeps {
  store: ResponseStore;
  schema: () => SchemaOverview;
  permissionsOf: (accountability: Accountability) => Promise<PermissionSet | null>;
  /** The caller's permission set if it is at hand without waiting (null: an admin; undefined: it must be loaded). */
  permissionsNow?: (accountability: Accountability) => PermissionSet | null | undefined;
  warn: (message: string) => void;
}

interface RulesIdentity {
  hash: string;
  /** The rules name the caller ($CURRENT_USER, $CURRENT_ROLE, $CURRENT_POLICIES): answers are per user. */
  personal: boolean;
  /** The rules name the time: answers are not kept. */
  timed: boolean;
}

const sha = (text: string) => createHash('sha256').update(text).digest('base64url');

export class ResponseCache {
  private readonly rules = new WeakMap<PermissionSet, RulesIdentity>();
  private readonly schemas = new WeakMap<SchemaOverview, string>();
  private failing = false;
  /** Misses being read, by key: a miss of the same key at the same write sequence waits for that read's answer. */
  private readonly flights = new Map<string, { sequence: number; answer: Promise<string | null> }>();
  /** Lookups answered and not (for the bench and metrics). */
  readonly stats = { hits: 0, misses: 0 };

  constructor(private readonly deps: ResponseCacheDeps) {}

  /**
   * The key of a read (`material`: method, path and the normalised request text), or null when its answer may not
   * be kept (it depends on the time).
   */
  async keyOf(material: string, accountability: Accountability): Promise<string | null> {
    if (material.includes('$NOW')) return null;
    const set = accountability.admin ? null : await this.deps.permissionsOf(accountability);
    return this.keyWith(material, accountability, set);
  }

  /**
   * The same key as `keyOf`, when everything it needs is at hand without waiting (the caller's permission set
   * cached); undefined otherwise, and null when the answer may not be kept.
   */
  keyNow(material: string, accountability: Accountability): string | null | undefined {
    if (material.includes('$NOW')) return null;
    if (accountability.admin) return this.keyWith(material, accountability, null);
    const set = this.deps.permissionsNow?.(accountability);
    return set === undefined ? undefined : this.keyWith(material, accountability, set);
  }

  /** Whether answers are in this process's memory, so that `peek` can find them. */
  get inMemory(): boolean {
    return this.deps.store.peek !== undefined;
  }

  /** A valid answer this instance holds in its memory, found without waiting (counted as a hit), or undefined. */
  peek(key: string): Buffer | undefined {
    if (!this.deps.store.peek) return undefined;
    const body = this.deps.store.peek(key);
    if (body !== undefined) this.stats.hits++;
    return body;
  }

  private keyWith(material: string, accountability: Accountability, set: PermissionSet | null): string | null {
    let personal = material.includes('$CURRENT_');
    let who = accountability.admin ? 'admin' : `${[...accountability.policies].sort().join(',')}:${accountability.app}`;
    if (!accountability.admin && set) {
      const rules = this.rulesOf(set);
      if (rules.timed) return null;
      personal ||= rules.personal;
      who += `:${rules.hash}`;
    }
    if (personal) who += `:${accountability.user ?? ''}:${accountability.role ?? ''}`;
    return sha(`${this.schemaId()}\u0000${who}\u0000${material}`);
  }

  /** The kept answer, if valid, and the write sequence a miss's read starts at (null: the store is away). */
  async lookup(key: string): Promise<{ body: string | Buffer | undefined; sequence: number | null }> {
    try {
      const found = await this.deps.store.lookup(key);
      this.failing = false;
      if (found.body === undefined) this.stats.misses++;
      else this.stats.hits++;
      return found;
    } catch (error) {
      this.failed(error);
      this.stats.misses++;
      return { body: undefined, sequence: null };
    }
  }

  /**
   * After a miss at `sequence`: the answer of the same read already on its way, begun at the same sequence (no write
   * came between: it is as fresh as a read of one's own), or null with `done` to call with this read's keepable answer
   * (null when it is not to be kept). Many callers missing at once then cost one read.
   */
  flight(key: string, sequence: number): { joined: Promise<string | null> } | { done: (body: string | null) => void } {
    const running = this.flights.get(key);
    if (running && running.sequence === sequence) return { joined: running.answer };
    let done!: (body: string | null) => void;
    const answer = new Promise<string | null>((resolve) => (done = resolve));
    const entry = { sequence, answer };
    this.flights.set(key, entry);
    return {
      done: (body) => {
        if (this.flights.get(key) === entry) this.flights.delete(key);
        done(body);
      },
    };
  }

  /** Keeps an answer in the background (a write since `sequence` to one of `tags` keeps it out). */
  keep(key: string, body: string, tags: readonly string[], sequence: number): void {
    this.deps.store.store(key, body, tags, sequence).catch((error: unknown) => this.failed(error));
  }

  /** Drops the answers that read `collections`; awaited before the write that changed them is acknowledged. */
  async changed(collections: readonly string[]): Promise<void> {
    if (collections.length === 0) return;
    try {
      await this.deps.store.bump(collections);
    } catch (error) {
      this.failed(error);
    }
  }

  close(): Promise<void> {
    return this.deps.store.close();
  }

  private failed(error: unknown): void {
    if (this.failing) return;
    this.failing = true;
    this.deps.warn(`Response cache store unavailable: ${error instanceof Error ? error.message : String(error)}`);
  }

  private rulesOf(set: PermissionSet): RulesIdentity {
    let found = this.rules.get(set);
    if (!found) {
      const text = JSON.stringify(set.rules);
      found = { hash: sha(text), personal: text.includes('$CURRENT_'), timed: text.includes('$NOW') };
      this.rules.set(set, found);
    }
    return found;
  }

  /** The structure itself (not this instance's version counter), so that instances sharing Redis share keys. */
  private schemaId(): string {
    const schema = this.deps.schema();
    let id = this.schemas.get(schema);
    if (id === undefined) {
      const seen = new WeakSet<object>();
      const text = JSON.stringify({ ...schema, version: 0 }, (_key, value: unknown) => {
        if (typeof value !== 'object' || value === null) return value;
        if (seen.has(value)) return '#';
        seen.add(value);
        return value;
      });
      id = sha(text);
      this.schemas.set(schema, id);
    }
    return id;
  }
}
