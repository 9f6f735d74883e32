/**
 * Storage locations, upload limits and asset settings (Directus's names). A location's own settings are read from
 * `STORAGE_<NAME>_*`, NAME being the location's name upper-cased (`STORAGE_LOCATIONS=local,images` →
 * `STORAGE_LOCAL_ROOT`, `STORAGE_IMAGES_DRIVER`...).
 */
import path from 'node:path';
import { parseDuration } from './duration.js';
import { bool, ConfigError, duration, int, size, str, type Env } from './env-values.js';

export type StorageDriverName = 'local' | 's3';

export interface StorageLocationConfig {
  name: string;
  driver: StorageDriverName;
  /** local: the folder that holds the files (absolute). */
  root: string;
  /** s3: credentials, bucket and where the server is. */
  key: string | null;
  secret: string | null;
  bucket: string | null;
  region: string | null;
  endpoint: string | null;
  forcePathStyle: boolean;
}

export interface StorageConfig {
  /** In the order of STORAGE_LOCATIONS; the first is where uploads go unless they name another. */
  locations: StorageLocationConfig[];
  /** Largest file an upload or an import may store, in bytes (FILES_MAX_UPLOAD_SIZE). */
  maxUploadSize: number;
  /** MIME types an upload may have (`image/*`, `application/pdf`...); `*\/*` admits every type. */
  mimeTypeAllowList: string[];
  /** Cache-Control max-age of assets, in seconds (ASSETS_CACHE_TTL). */
  assetsCacheTtlSeconds: number;
  transforms: TransformConfig;
  importFromUrl: UrlImportConfig;
  tus: TusConfig;
}

/** Resumable uploads (the tus protocol at /files/tus), as Directus 11 names their settings. */
export interface TusConfig {
  /** TUS_ENABLED: /files/tus answers only when set. */
  enabled: boolean;
  /**
   * TUS_CHUNK_SIZE: Directus's storage-part size. Read so a Directus configuration starts; parts here wait whole in a
   * local folder, so it sets nothing (a client's PATCH may carry any size).
   */
  chunkSize: number;
  /** TUS_UPLOAD_EXPIRATION: an upload untouched this long is removed with its row. */
  expirationMs: number;
  /** TUS_CLEANUP_SCHEDULE: how often expired uploads are looked for. */
  cleanupEveryMs: number;
}

export interface TransformConfig {
  /** Image transforms run at once; the others wait their turn (ASSETS_TRANSFORM_MAX_CONCURRENT). */
  maxConcurrent: number;
  /** Largest width or height an image to transform may declare (ASSETS_TRANSFORM_IMAGE_MAX_DIMENSION). */
  maxDimension: number;
  /** Longest a transform may run (ASSETS_TRANSFORM_TIMEOUT). */
  timeoutMs: number;
  /** Most operations a `transforms` list may hold (ASSETS_TRANSFORM_MAX_OPERATIONS). */
  maxOperations: number;
}

export interface UrlImportConfig {
  /** Longest an import may take to answer and to send its bytes (FILES_IMPORT_TIMEOUT). */
  timeoutMs: number;
  /** Addresses or ranges (CIDR) refused besides the private ones (IMPORT_IP_DENY_LIST). */
  denyList: string[];
  /** Admit loopback addresses (FILES_IMPORT_ALLOW_LOOPBACK; for tests against a local server only). */
  allowLoopback: boolean;
}

function list(value: string | null, fallback: string[]): string[] {
  if (value === null) return fallback;
  return value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
}

const LOCATION_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/i;

function location(env: Env, name: string): StorageLocationConfig {
  const prefix = `STORAGE_${name.toUpperCase().replace(/-/g, '_')}`;
  const driver = (str(env, `${prefix}_DRIVER`) ?? 'local').toLowerCase();
  if (driver !== 'local' && driver !== 's3')
    throw new ConfigError(`${prefix}_DRIVER`, `expected local or s3, got "${driver}"`);
  const forcePathStyle = bool(env, `${prefix}_FORCE_PATH_STYLE`, false);
  return {
    name,
    driver,
    root: path.resolve(str(env, `${prefix}_ROOT`) ?? './uploads'),
    key: str(env, `${prefix}_KEY`),
    secret: str(env, `${prefix}_SECRET`),
    bucket: str(env, `${prefix}_BUCKET`),
    region: str(env, `${prefix}_REGION`),
    endpoint: str(env, `${prefix}_ENDPOINT`),
    forcePathStyle,
  };
}

export function readStorageConfig(env: Env): StorageConfig {
  const names = list(str(env, 'STORAGE_LOCATIONS'), ['local']);
  if (names.length === 0) throw new ConfigError('STORAGE_LOCATIONS', 'names no location');
  for (const name of names)
    if (!LOCATION_NAME.test(name))
      throw new ConfigError('STORAGE_LOCATIONS', `"${name}" is not a location name (letters, digits, - and _)`);
  const locations = names.map((name) => location(env, name));
  for (const loc of locations)
    if (loc.driver === 's3' && !loc.bucket)
      throw new ConfigError(`STORAGE_${loc.name.toUpperCase()}_BUCKET`, 'an s3 location needs a bucket');
  return {
    locations,
    maxUploadSize: size(env, 'FILES_MAX_UPLOAD_SIZE', '1gb', '100mb, 1gb or 104857600'),
    mimeTypeAllowList: list(str(env, 'FILES_MIME_TYPE_ALLOW_LIST'), ['*/*']).map((t) => t.toLowerCase()),
    assetsCacheTtlSeconds: Math.floor(duration(env, 'ASSETS_CACHE_TTL', '30d') / 1000),
    transforms: {
      maxConcurrent: int(env, 'ASSETS_TRANSFORM_MAX_CONCURRENT', 4, 1, 256),
      maxDimension: int(env, 'ASSETS_TRANSFORM_IMAGE_MAX_DIMENSION', 6000, 1, 100_000),
      timeoutMs: duration(env, 'ASSETS_TRANSFORM_TIMEOUT', '7500ms'),
      maxOperations: int(env, 'ASSETS_TRANSFORM_MAX_OPERATIONS', 5, 0, 100),
    },
    importFromUrl: {
      timeoutMs: duration(env, 'FILES_IMPORT_TIMEOUT', '30s'),
      denyList: list(str(env, 'IMPORT_IP_DENY_LIST'), ['0.0.0.0', '169.254.169.254']),
      allowLoopback: bool(env, 'FILES_IMPORT_ALLOW_LOOPBACK', false),
    },
    tus: readTusConfig(env),
  };
}

function readTusConfig(env: Env): TusConfig {
  return {
    enabled: bool(env, 'TUS_ENABLED', false),
    chunkSize: size(env, 'TUS_CHUNK_SIZE', '8mb', '8mb or 8388608'),
    expirationMs: duration(env, 'TUS_UPLOAD_EXPIRATION', '10m'),
    cleanupEveryMs: cleanupSchedule(str(env, 'TUS_CLEANUP_SCHEDULE') ?? '*/5 * * * *'),
  };
}

/**
 * Directus takes a cron expression; Strata runs the cleanup on an interval, so it takes the every-N-minutes form
 * (`*\/5 * * * *`, `* * * * *`) or a duration (`5m`).
 */
function cleanupSchedule(value: string): number {
  const cron = /^(\*|\*\/([1-9][0-9]{0,3}))(\s+\*){4}$/.exec(value.trim());
  if (cron) return (cron[2] ? Number(cron[2]) : 1) * 60_000;
  const ms = parseDuration(value);
  if (ms !== null && ms > 0) return ms;
  throw new ConfigError(
    'TUS_CLEANUP_SCHEDULE',
    `expected "*/N * * * *" (every N minutes) or a duration, got "${value}"`,
  );
}
