/**
 * The hook events of Directus 11 (filter, action, init), for extensions and flows. A filter runs inside the write's
 * transaction before it commits: it may answer a changed payload or throw to refuse (a coded error; the transaction
 * is rolled back). Filters run one after the other in registration order, each bounded by `filterTimeoutMs`. An
 * action runs after commit, off the request path: its failure is logged, never the caller's. With no handler for an
 * event, `hasFilter`/`hasAction` answer false from one Map lookup, so a writer can skip building meta at all.
 */
import type { Executor } from '../../db/connection.js';
import type { Accountability } from '../../permissions/accountability.js';
import type { SchemaOverview } from '../../schema/types.js';
import { hookError, hookTimeoutError } from './hook-errors.js';

export type EventMeta = Record<string, unknown>;

/** What a handler is given beside its meta, as Directus hands it: `database` is Strata's executor (see docs). */
export interface EventContext {
  accountability: Accountability | null;
  schema: SchemaOverview | null;
  database: Executor | null;
}

export type FilterHandler = (payload: unknown, meta: EventMeta, context: EventContext) => unknown;
export type ActionHandler = (meta: EventMeta, context: EventContext) => unknown;
export type InitHandler = (meta: EventMeta) => unknown;

export interface EmitterOptions {
  /** Upper bound of one filter handler (EXTENSIONS_FILTER_TIMEOUT); 0: unbounded. */
  filterTimeoutMs: number;
  /** Where a failing action or init handler is reported. */
  onError?: (error: unknown, event: string) => void;
}

type Kind = 'filter' | 'action' | 'init';

export class EventEmitter {
  private readonly handlers: Record<Kind, Map<string, Set<(...args: never[]) => unknown>>> = {
    filter: new Map(),
    action: new Map(),
    init: new Map(),
  };
  private readonly pending = new Set<Promise<unknown>>();
  /** Action handlers delivered through the outbox for writes (durable), by their stable id. */
  private readonly durable = new Map<string, { event: string; handler: ActionHandler }>();
  private readonly durableEvents = new Map<string, Set<string>>();

  constructor(private readonly options: EmitterOptions = { filterTimeoutMs: 5000 }) {}

  /** Registers a filter; answers its removal. */
  onFilter(event: string, handler: FilterHandler): () => void {
    return this.add('filter', event, handler);
  }

  onAction(event: string, handler: ActionHandler): () => void {
    return this.add('action', event, handler);
  }

  /**
   * An action whose write events are recorded in the write's transaction and delivered after commit by the outbox
   * (src/flows/hook-deliveries.ts), at least once; `id` names it the same across restarts and instances. For events
   * without a write transaction (auth, server) it runs as any action.
   */
  onDurableAction(id: string, event: string, handler: ActionHandler): () => void {
    const remove = this.add('action', event, handler);
    this.durable.set(id, { event, handler });
    let ids = this.durableEvents.get(event);
    if (!ids) this.durableEvents.set(event, (ids = new Set()));
    ids.add(id);
    return () => {
      remove();
      if (this.durable.get(id)?.handler !== handler) return;
      this.durable.delete(id);
      ids.delete(id);
      if (ids.size === 0 && this.durableEvents.get(event) === ids) this.durableEvents.delete(event);
    };
  }

  /** The durable actions listening to `event`, by id, in registration order. */
  durableActions(event: string): string[] {
    return [...(this.durableEvents.get(event) ?? [])];
  }

  hasDurableActions(): boolean {
    return this.durable.size > 0;
  }

  durableAction(id: string): ActionHandler | undefined {
    return this.durable.get(id)?.handler;
  }

  onInit(event: string, handler: InitHandler): () => void {
    return this.add('init', event, handler);
  }

  hasFilter(events: string | readonly string[]): boolean {
    return this.has('filter', events);
  }

  hasAction(events: string | readonly string[]): boolean {
    return this.has('action', events);
  }

  /** Whether any filter is registered (one size check: a read with no hooks builds no event names). */
  hasAnyFilter(test?: (event: string) => boolean): boolean {
    const map = this.handlers.filter;
    if (map.size === 0) return false;
    return test === undefined || [...map.keys()].some(test);
  }

  hasAnyAction(): boolean {
    return this.handlers.action.size > 0;
  }

  /**
   * `emitAction` on the next turn of the event loop, its meta built then (`meta`: a read's rows decoded after its
   * response has gone); tracked as any action, a failure of `meta` reported too.
   */
  emitActionLater(events: readonly string[], meta: () => EventMeta, context: EventContext): void {
    this.track(events[0] ?? 'action', async () => {
      await new Promise<void>((resolve) => setImmediate(resolve));
      this.emitAction(events, meta(), context);
    });
  }

  /**
   * Runs the filters of `events` in turn, each given the payload the one before answered (an `undefined` answer
   * keeps it). A throw or a timeout is a coded error (hook-errors.ts) for the caller to roll back on.
   */
  async emitFilter<T>(
    events: string | readonly string[],
    payload: T,
    meta: EventMeta,
    context: EventContext,
  ): Promise<T> {
    let current: unknown = payload;
    for (const event of typeof events === 'string' ? [events] : events) {
      const set = this.handlers.filter.get(event);
      if (!set) continue;
      for (const handler of [...set] as FilterHandler[]) {
        const answer = await this.bounded(event, () => handler(current, { ...meta, event }, context));
        if (answer !== undefined) current = answer;
      }
    }
    return current as T;
  }

  /**
   * Starts the actions of `events` (not awaited by the caller); a failure goes to `onError`. `durable: false` (a
   * write whose outbox recorded the durable ones) leaves out the durable actions.
   */
  emitAction(events: string | readonly string[], meta: EventMeta, context: EventContext, durable = true): void {
    for (const event of typeof events === 'string' ? [events] : events) {
      const set = this.handlers.action.get(event);
      if (!set) continue;
      const skip = durable ? null : new Set([...this.durable.values()].map((d) => d.handler));
      for (const handler of [...set] as ActionHandler[]) {
        if (skip?.has(handler)) continue;
        this.track(event, () => handler({ ...meta, event }, context));
      }
    }
  }

  /** Whether `events` have actions other than durable ones. */
  hasImmediateAction(events: readonly string[]): boolean {
    return events.some((event) => {
      const set = this.handlers.action.get(event);
      return set !== undefined && set.size > (this.durableEvents.get(event)?.size ?? 0);
    });
  }

  /** Runs the init handlers of `event` (`app.before`, `routes.custom.after`…), awaited, failures reported. */
  async emitInit(event: string, meta: EventMeta = {}): Promise<void> {
    const set = this.handlers.init.get(event);
    if (!set) return;
    for (const handler of [...set] as InitHandler[]) {
      try {
        await handler({ ...meta, event });
      } catch (error) {
        this.options.onError?.(error, event);
      }
    }
  }

  /** Waits for the actions under way (tests, shutdown), at most `timeoutMs` when given; never rejects. */
  async settled(timeoutMs?: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const limit =
      timeoutMs === undefined ? null : new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    timer?.unref();
    const all = (async () => {
      while (this.pending.size) await Promise.allSettled([...this.pending]);
    })();
    await (limit ? Promise.race([all, limit]) : all);
    clearTimeout(timer);
  }

  private add(kind: Kind, event: string, handler: (...args: never[]) => unknown): () => void {
    let set = this.handlers[kind].get(event);
    if (!set) this.handlers[kind].set(event, (set = new Set()));
    set.add(handler);
    return () => {
      set.delete(handler);
      if (set.size === 0 && this.handlers[kind].get(event) === set) this.handlers[kind].delete(event);
    };
  }

  private has(kind: Kind, events: string | readonly string[]): boolean {
    const map = this.handlers[kind];
    if (map.size === 0) return false;
    if (typeof events === 'string') return map.has(events);
    return events.some((event) => map.has(event));
  }

  private async bounded(event: string, run: () => unknown): Promise<unknown> {
    const ms = this.options.filterTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    try {
      const work = Promise.resolve().then(run);
      if (!(ms > 0)) return await work;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(hookTimeoutError(event, ms)), ms);
        timer.unref();
      });
      // A filter that never settles is left behind; its late rejection is swallowed here.
      work.catch(() => {});
      return await Promise.race([work, timeout]);
    } catch (error) {
      throw hookError(error);
    } finally {
      if (timer) clearTimeout(timer);
    }
  }

  private track(event: string, run: () => unknown): void {
    const promise = Promise.resolve()
      .then(run)
      .catch((error: unknown) => this.options.onError?.(error, event))
      .finally(() => this.pending.delete(promise));
    this.pending.add(promise);
  }
}
