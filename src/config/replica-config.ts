/**
 * Read replicas (DB_REPLICAS and DB_REPLICA_*): where reads may go besides the primary, how stale a replica may be,
 * and how long one may take to answer before a read goes to the primary (docs/design/read-replicas.md).
 */
import { ConfigError, duration, int, str, type Env } from './env-values.js';

export interface ReplicaConfig {
  /** Connection URLs of the replicas, in the primary's own scheme. */
  urls: string[];
  /** A replica further behind the primary than this is skipped (DB_REPLICA_MAX_LAG). */
  maxLagMs: number;
  /** Most connections Strata opens to each replica (DB_REPLICA_POOL_MAX). */
  poolMax: number;
  /** How often each replica's replayed position (and so its lag) is measured (DB_REPLICA_PROBE_INTERVAL). */
  probeIntervalMs: number;
  /** A replica that has not answered a read or a probe by then is skipped; the read runs on the primary (DB_REPLICA_TIMEOUT). */
  timeoutMs: number;
}

/** The scheme a replica's URL must have, per primary client; SQLite has no replicas. */
const SCHEMES: Record<string, readonly string[]> = {
  pg: ['postgres', 'postgresql'],
  mysql: ['mysql', 'mariadb'],
};

/** Null when DB_REPLICAS is unset; refuses it on SQLite and any URL of another database. */
export function readReplicaConfig(env: Env, client: string): ReplicaConfig | null {
  const raw = str(env, 'DB_REPLICAS');
  if (raw === null || raw.trim() === '') return null;
  const schemes = SCHEMES[client];
  if (!schemes)
    throw new ConfigError(
      'DB_REPLICAS',
      'read replicas need PostgreSQL or MariaDB/MySQL (DB_CLIENT=pg or mysql); SQLite has none',
    );
  const urls = raw
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  if (urls.length > 16) throw new ConfigError('DB_REPLICAS', 'at most 16 replicas');
  for (const url of urls) {
    let scheme: string;
    try {
      scheme = new URL(url).protocol.replace(/:$/, '').toLowerCase();
    } catch {
      throw new ConfigError(
        'DB_REPLICAS',
        `not a comma list of connection URLs (e.g. ${schemes[0]}://user@replica:port/db)`,
      );
    }
    if (!schemes.includes(scheme))
      throw new ConfigError(
        'DB_REPLICAS',
        `a ${scheme}:// URL while DB_CLIENT is ${client}: give ${schemes[0]}:// URLs`,
      );
  }
  const probeIntervalMs = duration(env, 'DB_REPLICA_PROBE_INTERVAL', '250ms');
  if (probeIntervalMs < 10) throw new ConfigError('DB_REPLICA_PROBE_INTERVAL', 'at least 10ms');
  const maxLagMs = duration(env, 'DB_REPLICA_MAX_LAG', '2s');
  if (maxLagMs < probeIntervalMs)
    throw new ConfigError(
      'DB_REPLICA_MAX_LAG',
      'must be at least DB_REPLICA_PROBE_INTERVAL (lag is measured that often)',
    );
  const timeoutMs = duration(env, 'DB_REPLICA_TIMEOUT', '5s');
  if (timeoutMs < 1) throw new ConfigError('DB_REPLICA_TIMEOUT', 'must be more than 0');
  return { urls, maxLagMs, poolMax: int(env, 'DB_REPLICA_POOL_MAX', 10, 1, 100), probeIntervalMs, timeoutMs };
}
