/**
 * A hook extension's register function called with Directus's `{ filter, action, init, schedule, embed }` and its
 * context. Everything it registers is remembered, so a reload removes it. A handler's `database` takes `?`
 * placeholders like the context's. `action`s are durable (delivered through the outbox, src/flows/hook-deliveries.ts).
 * `schedule` ids are the extension's name and the schedule's place in it, the same
 * on every instance, so a tick runs once across them.
 */
import type { AppContext } from '../app/app-context.js';
import type { EventContext } from '../engine/events/event-emitter.js';
import { Scheduler } from '../engine/events/scheduler.js';
import { questionMarkExecutor, type ExtensionContext } from './extension-context.js';

export type Disposer = () => void;

type HookFn = (register: Record<string, unknown>, context: ExtensionContext) => unknown;

export function registerHook(
  context: AppContext,
  name: string,
  hook: HookFn,
  extensionContext: ExtensionContext,
  /** false (the CLI): `schedule` registers nothing. */
  withSchedules = true,
): Disposer[] {
  const disposers: Disposer[] = [];
  const placeholder = (n: number) => context.db.dialect.sql.placeholder(n);
  const wrapContext = (ctx: EventContext): EventContext => ({
    ...ctx,
    database: ctx.database ? questionMarkExecutor(ctx.database, placeholder) : ctx.database,
  });
  let schedules = 0;
  let actions = 0;
  const register = {
    filter: (event: string, handler: (p: unknown, m: unknown, c: EventContext) => unknown) =>
      disposers.push(context.events.onFilter(event, (p, m, c) => handler(p, m, wrapContext(c)))),
    action: (event: string, handler: (m: unknown, c: EventContext) => unknown) =>
      // Durable (the outbox): its id is the extension, the event and its place among the extension's actions.
      disposers.push(
        context.events.onDurableAction(`${name}:${event}:${actions++}`, event, (m, c) => handler(m, wrapContext(c))),
      ),
    init: (event: string, handler: (m: unknown) => unknown) => disposers.push(context.events.onInit(event, handler)),
    schedule: (cron: string, handler: () => unknown) => {
      if (!Scheduler.valid(cron)) throw new Error(`"${cron}" is not a cron expression`);
      if (!withSchedules) return;
      disposers.push(context.scheduler.schedule(cron, handler, `extension:${name}:${schedules++}:${cron}`));
    },
    // Embeds inject HTML into Studio in Directus; Strata's Studio takes none: accepted and ignored.
    embed: () => {},
  };
  try {
    hook(register, extensionContext);
  } catch (error) {
    disposers.forEach((dispose) => dispose());
    throw error;
  }
  return disposers;
}
