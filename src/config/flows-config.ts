/**
 * Flows and their outbox (docs/flows.md): what a run may use (operations, time, request time and bytes), which
 * environment variables `$env` shows, how outgoing requests are signed, and how deliveries are retried.
 */
import { Cron } from 'croner';
import { ConfigError, duration, int, size, str, type Env } from './env-values.js';

/** A croner pattern (5 fields, or 6 with seconds first), checked at start. */
function cron(env: Env, name: string, fallback: string): string {
  const value = str(env, name) ?? fallback;
  try {
    new Cron(value, { paused: true }).stop();
  } catch {
    throw new ConfigError(name, `expected a cron expression such as "0 * * * *", got "${value}"`);
  }
  return value;
}

export interface FlowsConfig {
  /** FLOWS_ENV_ALLOW_LIST (Directus's name; default none): the environment variables a flow reads as `$env`. */
  envAllowList: string[];
  /** FLOWS_SIGNING_SECRET: signs every request operation (X-Strata-Signature) unless the operation has its own. */
  signingSecret: string | null;
  /** FLOWS_MAX_OPERATIONS (default 100): operations one run may execute (a loop of triggers counts each). */
  maxOperations: number;
  /** FLOWS_RUN_TIMEOUT (default 30s): a run still going after this fails (its sleeps and requests included). */
  runTimeoutMs: number;
  /** FLOWS_REQUEST_TIMEOUT (default 10s): one request operation. */
  requestTimeoutMs: number;
  /** FLOWS_RESPONSE_MAX_SIZE (default 1mb): a request operation's response body beyond this fails the operation. */
  responseMaxBytes: number;
  /** FLOWS_DELIVERY_ATTEMPTS (default 10): tries of one outbox delivery before it is marked failed. */
  deliveryAttempts: number;
  /** FLOWS_RETRY_BASE (default 1s): the first retry's delay; each next one doubles, up to FLOWS_RETRY_MAX. */
  retryBaseMs: number;
  /** FLOWS_RETRY_MAX (default 10m). */
  retryMaxMs: number;
  /** FLOWS_DELIVERY_LEASE (default 2m): how long an instance holds a claimed delivery before another may take it. */
  leaseMs: number;
  /** FLOWS_DELIVERY_POLL (default 5s): the fallback poll for due deliveries (commits wake the worker at once). */
  pollMs: number;
  /** FLOWS_DELIVERY_BATCH (default 20): deliveries claimed, and run at once, per turn of an instance. */
  batch: number;
  /** FLOWS_DELIVERY_RETENTION (default 7d): delivered rows older than this are deleted. */
  retentionMs: number;
  /** FLOWS_DELIVERY_PRUNE_SCHEDULE (default hourly, `0 * * * *`): when the prune runs, once across instances. */
  pruneCron: string;
}

export function readFlowsConfig(env: Env): FlowsConfig {
  const allow = str(env, 'FLOWS_ENV_ALLOW_LIST');
  const runTimeoutMs = duration(env, 'FLOWS_RUN_TIMEOUT', '30s');
  return {
    envAllowList: allow
      ? allow
          .split(',')
          .map((name) => name.trim())
          .filter(Boolean)
      : [],
    signingSecret: str(env, 'FLOWS_SIGNING_SECRET'),
    maxOperations: int(env, 'FLOWS_MAX_OPERATIONS', 100, 1, 100_000),
    runTimeoutMs,
    requestTimeoutMs: duration(env, 'FLOWS_REQUEST_TIMEOUT', '10s'),
    responseMaxBytes: size(env, 'FLOWS_RESPONSE_MAX_SIZE', '1mb', '1mb or 500kb'),
    deliveryAttempts: int(env, 'FLOWS_DELIVERY_ATTEMPTS', 10, 1, 1000),
    retryBaseMs: duration(env, 'FLOWS_RETRY_BASE', '1s'),
    retryMaxMs: duration(env, 'FLOWS_RETRY_MAX', '10m'),
    // A lease shorter than a run would let a second instance start the same delivery while the first still runs.
    leaseMs: Math.max(duration(env, 'FLOWS_DELIVERY_LEASE', '2m'), runTimeoutMs + 1000),
    pollMs: duration(env, 'FLOWS_DELIVERY_POLL', '5s'),
    batch: int(env, 'FLOWS_DELIVERY_BATCH', 20, 1, 1000),
    retentionMs: duration(env, 'FLOWS_DELIVERY_RETENTION', '7d'),
    pruneCron: cron(env, 'FLOWS_DELIVERY_PRUNE_SCHEDULE', '0 * * * *'),
  };
}
