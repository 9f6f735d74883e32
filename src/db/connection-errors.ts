/** Whether an error means the database could not be reached (as opposed to a failed statement). */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'EPIPE', 'PROTOCOL_CONNECTION_LOST', 'SQLITE_CANTOPEN']);

export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  if (code && NETWORK_CODES.has(code)) return true;
  if (error.name === 'KnexTimeoutError') return true;
  // knex after destroy(), and pools that cannot hand out a connection.
  return /Unable to acquire a connection|aborted|pool is (probably )?(full|destroyed)|Connection terminated/i.test(error.message) && !(error as { sqlState?: unknown }).sqlState;
}
