/**
 * The Prometheus endpoint's settings, with Directus's names: METRICS_ENABLED, METRICS_TOKENS, METRICS_SERVICES
 * (docs/metrics.md). METRICS_SCHEDULE is not read: Directus runs health probes on that cron, Strata's figures are
 * kept live and read when /metrics is scraped.
 */
import { bool, ConfigError, str, type Env } from './env-values.js';

/** Directus's services (database, cache, redis, storage) and Strata's own groups of figures. */
export const METRIC_SERVICES = [
  'http',
  'database',
  'cache',
  'realtime',
  'outbox',
  'workers',
  'process',
  'redis',
  'storage',
] as const;

export type MetricService = (typeof METRIC_SERVICES)[number];

export interface MetricsConfig {
  /** Serve GET /metrics and record what it shows (METRICS_ENABLED, default false: nothing is recorded). */
  enabled: boolean;
  /** Tokens a scraper may send as `Authorization: Bearer <token>` or `Metrics <token>` (METRICS_TOKENS). */
  tokens: string[];
  /** The groups of figures recorded and shown (METRICS_SERVICES, default all). */
  services: ReadonlySet<MetricService>;
}

/** A token shorter than this is refused: it could be guessed by a scraper that is not one. */
const MIN_TOKEN_LENGTH = 16;
const MAX_TOKENS = 32;

function tokens(env: Env): string[] {
  const list = (str(env, 'METRICS_TOKENS') ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  if (list.length > MAX_TOKENS) throw new ConfigError('METRICS_TOKENS', `at most ${MAX_TOKENS} tokens`);
  const short = list.find((t) => t.length < MIN_TOKEN_LENGTH);
  if (short !== undefined)
    throw new ConfigError('METRICS_TOKENS', `each token needs at least ${MIN_TOKEN_LENGTH} characters`);
  return list;
}

function services(env: Env): Set<MetricService> {
  const raw = str(env, 'METRICS_SERVICES');
  if (raw === null) return new Set(METRIC_SERVICES);
  const names = raw
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');
  const unknown = names.find((n) => !(METRIC_SERVICES as readonly string[]).includes(n));
  if (unknown !== undefined)
    throw new ConfigError(
      'METRICS_SERVICES',
      `expected a comma list of ${METRIC_SERVICES.join(', ')}, got "${unknown}"`,
    );
  return new Set(names as MetricService[]);
}

export function readMetricsConfig(env: Env): MetricsConfig {
  return { enabled: bool(env, 'METRICS_ENABLED', false), tokens: tokens(env), services: services(env) };
}
