import type { ReplicationPositions } from '../../dialect.js';

/** A WAL position `16/B374D848` as one number: the high and low 32-bit halves in hexadecimal. */
function lsn(value: unknown): bigint | null {
  if (typeof value !== 'string') return null;
  const match = /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/i.exec(value);
  return match ? (BigInt(`0x${match[1]}`) << 32n) + BigInt(`0x${match[2]}`) : null;
}

/**
 * The primary's WAL write position, and how far a standby has replayed it. A committed transaction's commit record
 * lies before the primary's position read after it, so a standby that replayed that position shows the commit.
 */
export const postgresReplication: ReplicationPositions = {
  primarySql: 'select pg_current_wal_lsn()::text as position',
  replicaSql: 'select pg_last_wal_replay_lsn()::text as position',
  replayed(replica, primary) {
    const r = lsn(replica);
    const p = lsn(primary);
    return r !== null && p !== null && r >= p;
  },
};
