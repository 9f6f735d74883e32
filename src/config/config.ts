/**
 * Environment → typed configuration. Directus variable names where one exists. A bad value throws a
 * ConfigError naming the variable; the CLI prints it as one line and exits.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { bool, ConfigError, duration, int, size, str, type Env } from './env-values.js';
import { readWorkers } from './workers-config.js';
import { readScaleConfig, type ScaleConfig } from './scale-config.js';
import { readCacheConfig, type ResponseCacheConfig } from './cache-config.js';
import { readReplicaConfig, type ReplicaConfig } from './replica-config.js';
import { readHashConfig, type HashConfig } from './hash-config.js';
import { readAuthConfig, type AuthConfig } from './auth-config.js';
import { readAuthProvidersConfig, type AuthProvidersConfig } from './auth-providers-config.js';
import { readIoConfig, type IoConfig } from './io-config.js';
import { readRetentionConfig, type RetentionConfig } from './retention-config.js';
import { readFlowsConfig, type FlowsConfig } from './flows-config.js';
import { readExtensionsConfig, type ExtensionsConfig } from './extensions-config.js';
import { readGraphQLConfig, type GraphQLConfig } from './graphql-config.js';
import { readWebSocketConfig, type WebSocketConfig } from './websocket-config.js';
import { readGraphQLSocketConfig, type GraphQLSocketConfig } from './graphql-socket-config.js';
import { readRealtimeConfig, type RealtimeConfig } from './realtime-config.js';
import { readCorsConfig, type CorsConfig } from './cors-config.js';
import { readDocsConfig, type DocsConfig } from './docs-config.js';
import { readStorageConfig, type StorageConfig } from './storage-config.js';
import { readEmailConfig, type EmailConfig } from './email-config.js';
import { readMetricsConfig, type MetricsConfig } from './metrics-config.js';

export { ConfigError } from './env-values.js';

export type DbClient = 'pg' | 'mysql' | 'sqlite3';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface DbConfig {
  client: DbClient;
  /** SQLite file path (absolute). */
  filename: string;
  connectionString: string | null;
  host: string | null;
  port: number | null;
  database: string | null;
  user: string | null;
  password: string | null;
  /** PostgreSQL: the schemas served, in lookup order (the first also holds the service_* tables). */
  searchPath: string[];
  /** Longest a statement may run before the database cancels it (DB_STATEMENT_TIMEOUT; 0 = no limit). */
  statementTimeoutMs?: number;
  /** SQLite: threads that run reads off the event loop (DB_READ_THREADS; 0 = reads run inline). */
  readThreads?: number;
  /** Read replicas (DB_REPLICAS, PostgreSQL and MariaDB/MySQL); null or absent: every statement goes to the primary. */
  replicas?: ReplicaConfig | null;
}

export interface Config extends ScaleConfig {
  /** WORKERS: server processes behind the one port (1: this process serves, as always). */
  workers: number;
  /** The response cache (CACHE_*). */
  responseCache: ResponseCacheConfig;
  db: DbConfig;
  auth: AuthConfig;
  authProviders: AuthProvidersConfig;
  /** argon2 parameters of new password hashes (HASH_*). */
  hash: HashConfig;
  graphql: GraphQLConfig;
  websockets: WebSocketConfig;
  /** GraphQL subscriptions over graphql-ws. */
  graphqlSockets: GraphQLSocketConfig;
  realtime: RealtimeConfig;
  cors: CorsConfig;
  /** Serve Strata Studio (the admin app built into dist/studio) at /admin (ADMIN_APP_ENABLED, default true). */
  adminApp: boolean;
  docs: DocsConfig;
  /** Import and export batch sizes and file limit. */
  io: IoConfig;
  /** Storage locations, upload limits, assets and image transforms. */
  storage: StorageConfig;
  /** Mail (EMAIL_*) and the account flows that send it: allow-lists, token lifetimes, limits. */
  email: EmailConfig;
  /** Pruning of old activity and revisions (RETENTION_*, ACTIVITY_RETENTION, REVISIONS_RETENTION). */
  retention: RetentionConfig;
  /** Flows: run bounds, $env, signing, and the outbox's retries (FLOWS_*). */
  flows: FlowsConfig;
  /** Extensions: EXTENSIONS_PATH, EXTENSIONS_AUTO_RELOAD and the bounds on hooks and endpoints. */
  extensions: ExtensionsConfig;
  /** The Prometheus endpoint (METRICS_*). */
  metrics: MetricsConfig;
  host: string;
  port: number;
  /** Null until resolved by the secret store (generated on first start and kept in the data folder). */
  secret: string | null;
  dataDir: string;
  adminEmail: string;
  adminPassword: string | null;
  adminToken: string | null;
  accessTokenTtlMs: number;
  /** Every failed login takes at least this long, so timing reveals nothing. */
  loginStallTimeMs: number;
  queryLimitDefault: number;
  /** -1 = unbounded. */
  queryLimitMax: number;
  maxRelationalDepth: number;
  /** Deepest nesting of objects and arrays in a JSON request body (MAX_JSON_DEPTH). */
  maxJsonDepth: number;
  /** Deepest path `json(field, path)` may read in `fields` (MAX_JSON_QUERY_DEPTH). */
  maxJsonQueryDepth: number;
  /** Largest request body in bytes (MAX_PAYLOAD_SIZE, default 1mb). */
  maxPayloadSize: number;
  /** Most rows one write may create, update or delete, nested ones included (MAX_BATCH_MUTATION; Infinity = no limit). */
  maxBatchMutation: number;
  logLevel: LogLevel;
  /** Tries and delay when the database does not answer at start. */
  dbConnectRetries: number;
  dbConnectRetryDelayMs: number;
}

const DB_CLIENT_ALIASES: Record<string, DbClient> = {
  pg: 'pg',
  postgres: 'pg',
  postgresql: 'pg',
  mysql: 'mysql',
  mysql2: 'mysql',
  mariadb: 'mysql',
  sqlite3: 'sqlite3',
  sqlite: 'sqlite3',
  'better-sqlite3': 'sqlite3',
};

/** The scheme of a connection URL of each database served over the network. */
const URL_SCHEME: Record<DbClient, string> = { pg: 'postgres', mysql: 'mysql', sqlite3: 'file' };

const LOG_LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** A positive integer, or Infinity (the default) when unset or `Infinity`. */
/**
 * Read threads for SQLite: one per core, two at least (one long read then leaves a thread for the others) and four
 * at most (reads share one file and its page cache; more threads mostly add memory). Several workers share the
 * cores: each takes its part, one at least (its siblings serve while a long read holds it). Two workers with two
 * threads each on two cores cost a heavy read (bench (c)) a quarter of its rate.
 */
function defaultReadThreads(workers: number): number {
  const cores = availableParallelism();
  if (workers > 1) return Math.min(4, Math.max(1, Math.round(cores / workers)));
  return Math.min(4, Math.max(2, cores));
}

function limit(env: Env, name: string): number {
  const v = str(env, name);
  if (v === null || /^infinity$/i.test(v.trim())) return Infinity;
  return int(env, name, Infinity, 1);
}

/**
 * A valid URL whose scheme, when it names a database, names DB_CLIENT's: a URL of the other database would reach a
 * server speaking another protocol (an unexpected message, or a timeout) and be retried as "not reachable".
 */
function checkConnectionString(connectionString: string, client: DbClient, rawClient: string): void {
  let scheme: string;
  try {
    scheme = new URL(connectionString).protocol.replace(/:$/, '');
  } catch {
    throw new ConfigError('DB_CONNECTION_STRING', 'not a valid URL (e.g. postgres://user@127.0.0.1:5432/db)');
  }
  const named = DB_CLIENT_ALIASES[scheme.toLowerCase()];
  if (client !== 'sqlite3' && named && named !== client && named !== 'sqlite3')
    throw new ConfigError(
      'DB_CONNECTION_STRING',
      `a ${scheme}:// URL while DB_CLIENT is ${rawClient}: set DB_CLIENT=${named}, or give a ${URL_SCHEME[client]}:// URL`,
    );
}

/** Reads `.env` from the working directory (if present) into process.env without overriding set variables. */
export function loadEnvFile(file = path.resolve(process.cwd(), '.env')): void {
  if (existsSync(file)) process.loadEnvFile(file);
}

export function readConfig(env: Env = process.env): Config {
  const rawClient = str(env, 'DB_CLIENT') ?? 'sqlite3';
  const client = DB_CLIENT_ALIASES[rawClient.toLowerCase()];
  if (!client) throw new ConfigError('DB_CLIENT', `expected sqlite3, pg or mysql, got "${rawClient}"`);

  const dataDir = path.resolve(str(env, 'DATA_DIR') ?? './data');
  const filename = path.resolve(str(env, 'DB_FILENAME') ?? path.join(dataDir, 'data.db'));

  const connectionString = str(env, 'DB_CONNECTION_STRING');
  if (client !== 'sqlite3' && !connectionString && !str(env, 'DB_DATABASE')) {
    throw new ConfigError('DB_DATABASE', `required with DB_CLIENT=${client} unless DB_CONNECTION_STRING is set`);
  }
  if (connectionString) checkConnectionString(connectionString, client, rawClient);

  const searchPath = (text: string) => {
    const schemas = text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (schemas.length === 0 || schemas.some((s) => s.length > 63))
      throw new ConfigError('DB_SEARCH_PATH', 'expected a comma list of schema names, such as public,sales');
    return schemas;
  };

  const logLevel = (str(env, 'LOG_LEVEL') ?? 'info').toLowerCase() as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError('LOG_LEVEL', `expected one of ${LOG_LEVELS.join(', ')}`);

  const queryLimitMax = int(env, 'QUERY_LIMIT_MAX', -1, -1);
  let queryLimitDefault = int(env, 'QUERY_LIMIT_DEFAULT', 100, 1);
  if (queryLimitMax >= 0) queryLimitDefault = Math.min(queryLimitDefault, queryLimitMax);

  const adminEmail = str(env, 'ADMIN_EMAIL') ?? 'admin@example.com';
  if (!/^[^@\s]+@[^@\s]+$/.test(adminEmail))
    throw new ConfigError('ADMIN_EMAIL', `not an email address: "${adminEmail}"`);

  const secret = str(env, 'SECRET');
  if (secret !== null && secret.length < 16) throw new ConfigError('SECRET', 'must be at least 16 characters');

  const host = str(env, 'HOST') ?? '127.0.0.1';
  const workers = readWorkers(env, client, filename);
  const scale = readScaleConfig(env, client === 'sqlite3');

  return {
    db: {
      client,
      filename,
      connectionString,
      host: str(env, 'DB_HOST') ?? '127.0.0.1',
      port: str(env, 'DB_PORT') === null ? null : int(env, 'DB_PORT', 0, 1, 65535),
      database: str(env, 'DB_DATABASE'),
      user: str(env, 'DB_USER'),
      password: str(env, 'DB_PASSWORD'),
      searchPath: searchPath(str(env, 'DB_SEARCH_PATH') ?? 'public'),
      statementTimeoutMs:
        str(env, 'DB_STATEMENT_TIMEOUT')?.trim() === '0' ? 0 : duration(env, 'DB_STATEMENT_TIMEOUT', '30s'),
      readThreads: int(env, 'DB_READ_THREADS', defaultReadThreads(workers), 0, 64),
      replicas: readReplicaConfig(env, client),
    },
    host,
    port: int(env, 'PORT', 8055, 0, 65535),
    secret,
    dataDir,
    adminEmail,
    adminPassword: str(env, 'ADMIN_PASSWORD'),
    adminToken: str(env, 'ADMIN_TOKEN'),
    accessTokenTtlMs: duration(env, 'ACCESS_TOKEN_TTL', '15m'),
    loginStallTimeMs: int(env, 'LOGIN_STALL_TIME', 500, 0, 60_000),
    queryLimitDefault,
    queryLimitMax,
    maxRelationalDepth: int(env, 'MAX_RELATIONAL_DEPTH', 10, 2),
    maxJsonDepth: int(env, 'MAX_JSON_DEPTH', 100, 2, 1000),
    maxJsonQueryDepth: int(env, 'MAX_JSON_QUERY_DEPTH', 10, 1),
    maxPayloadSize: size(env, 'MAX_PAYLOAD_SIZE', '1mb', '1mb, 500kb or 1048576'),
    maxBatchMutation: limit(env, 'MAX_BATCH_MUTATION'),
    logLevel,
    dbConnectRetries: int(env, 'DB_CONNECT_RETRIES', 5, 1, 100),
    dbConnectRetryDelayMs: int(env, 'DB_CONNECT_RETRY_DELAY', 2000, 0),
    auth: readAuthConfig(env),
    authProviders: readAuthProvidersConfig(env),
    hash: readHashConfig(env),
    graphql: readGraphQLConfig(env),
    websockets: readWebSocketConfig(env),
    graphqlSockets: readGraphQLSocketConfig(env),
    realtime: readRealtimeConfig(env),
    cors: readCorsConfig(env),
    adminApp: bool(env, 'ADMIN_APP_ENABLED', true),
    docs: readDocsConfig(env),
    io: readIoConfig(env),
    storage: readStorageConfig(env),
    retention: readRetentionConfig(env),
    metrics: readMetricsConfig(env),
    email: readEmailConfig(env),
    flows: readFlowsConfig(env),
    extensions: readExtensionsConfig(env),
    ...scale,
    workers,
    responseCache: readCacheConfig(env, scale.redis !== null),
  };
}
