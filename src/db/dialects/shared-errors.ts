/**
 * The errors every driver raises alike, read before a dialect reads its own driver's: the sockets' (Node's network
 * codes, mysql2's lost protocol) and knex's pool (an acquire that timed out, a pool destroyed or that cannot hand out
 * a connection).
 */
import type { DriverErrorClass } from '../../errors/database-error.js';

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'EPIPE',
  'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST',
]);

export function sharedErrorClass(error: unknown): DriverErrorClass | null {
  if (!(error instanceof Error)) return null;
  const code = (error as NodeJS.ErrnoException).code;
  if (code && NETWORK_CODES.has(code)) return { kind: 'connection' };
  // The pool stayed full until its acquire timeout: the database may well be there.
  if (error.name === 'KnexTimeoutError') return { kind: 'connection', poolTimeout: true };
  // knex after destroy(), and pools that cannot hand out a connection.
  if (
    /Unable to acquire a connection|aborted|pool is (probably )?(full|destroyed)/i.test(error.message) &&
    !(error as { sqlState?: unknown }).sqlState
  )
    return { kind: 'connection' };
  return null;
}

/** A dialect's reading of its driver's error, the shared kind first (a lost socket is that, whatever else it says). */
export function withShared(error: unknown, own: DriverErrorClass | null): DriverErrorClass | null {
  const shared = sharedErrorClass(error);
  return shared ? { ...own, ...shared } : own;
}
