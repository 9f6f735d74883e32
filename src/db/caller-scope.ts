/**
 * Who a statement is run for, so that a caller's reads after their own write go to the primary (read-your-writes
 * with read replicas). Set around a request once its caller is known; used only when replicas are configured, so a
 * server without them does not pay for the async context.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const scope = new AsyncLocalStorage<string>();

/** Runs `work` (and everything it starts) as `caller`: a user's id, or the client address of a public caller. */
export function runAsCaller<T>(caller: string, work: () => T): T {
  return scope.run(caller, work);
}

/** The caller the current work runs for; undefined in background work (schedules, flows, start-up). */
export function currentCaller(): string | undefined {
  return scope.getStore();
}
