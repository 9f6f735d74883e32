/**
 * CORS (Directus docs: CORS settings): off unless CORS_ENABLED, as in Directus. CORS_ORIGIN `true` reflects the request's origin,
 * `false` allows none, anything else is a comma list of allowed origins.
 */
import { bool, int, str, type Env } from './env-values.js';

export interface CorsConfig {
  enabled: boolean;
  origin: boolean | string[];
  methods: string[];
  allowedHeaders: string[];
  exposedHeaders: string[];
  credentials: boolean;
  /** Seconds a browser may cache a preflight answer. */
  maxAge: number;
}

function list(env: Env, name: string, fallback: string): string[] {
  return (str(env, name) ?? fallback)
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

export function readCorsConfig(env: Env): CorsConfig {
  const origin = str(env, 'CORS_ORIGIN')?.trim() ?? 'false';
  return {
    enabled: bool(env, 'CORS_ENABLED', false),
    origin: origin === 'true' ? true : origin === 'false' ? false : list(env, 'CORS_ORIGIN', ''),
    methods: list(env, 'CORS_METHODS', 'GET,POST,PATCH,DELETE'),
    allowedHeaders: list(env, 'CORS_ALLOWED_HEADERS', 'Content-Type,Authorization'),
    exposedHeaders: list(env, 'CORS_EXPOSED_HEADERS', 'Content-Range'),
    credentials: bool(env, 'CORS_CREDENTIALS', true),
    maxAge: int(env, 'CORS_MAX_AGE', 18000, 0),
  };
}
