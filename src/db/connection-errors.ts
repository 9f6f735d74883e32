import { failureKind } from './failure-kind.js';

/** Whether an error means the database could not be reached (as opposed to a failed statement). */
export function isConnectionError(error: unknown): boolean {
  return failureKind(error) === 'connection';
}
