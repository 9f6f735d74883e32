import type { ReplicationPositions } from '../../dialect.js';

/** A GTID list `0-1-42,1-2-7` as replication domain → highest sequence number. */
function gtids(value: unknown): Map<string, bigint> | null {
  if (typeof value !== 'string') return null;
  const positions = new Map<string, bigint>();
  for (const part of value.split(',')) {
    const text = part.trim();
    if (!text) continue;
    const match = /^(\d+)-\d+-(\d+)$/.exec(text);
    if (!match) return null;
    positions.set(match[1], BigInt(match[2]));
  }
  return positions;
}

/**
 * MariaDB's global transaction IDs: the primary's binary log position, and what a replica has applied. Each
 * replication domain is ordered by its sequence numbers, so a replica has replayed the primary's position when it is
 * at or past it in every domain the primary names. (MySQL's GTID sets are another format: not read here.)
 */
export const mariadbReplication: ReplicationPositions = {
  primarySql: 'select @@global.gtid_binlog_pos as position',
  replicaSql: 'select @@global.gtid_slave_pos as position',
  replayed(replica, primary) {
    const r = gtids(replica);
    const p = gtids(primary);
    if (!r || !p) return false;
    for (const [domain, sequence] of p) if ((r.get(domain) ?? -1n) < sequence) return false;
    return true;
  },
};
