/** Typed readers of environment values; a bad value throws a ConfigError naming the variable. */
import bytes from 'bytes';
import { parseDuration } from './duration.js';

export type Env = Record<string, string | undefined>;

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`Invalid setting ${variable}: ${detail}`);
  }
}

export function str(env: Env, name: string): string | null {
  const v = env[name];
  return v === undefined || v === '' ? null : v;
}

export function int(env: Env, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const v = str(env, name);
  if (v === null) return fallback;
  if (!/^-?\d+$/.test(v.trim())) throw new ConfigError(name, `expected an integer, got "${v}"`);
  const n = Number(v);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

export function float(env: Env, name: string, fallback: number, min: number, max: number): number {
  const v = str(env, name);
  if (v === null) return fallback;
  const n = Number(v);
  if (!/^\s*[\d.]+\s*$/.test(v) || !Number.isFinite(n) || n < min || n > max)
    throw new ConfigError(name, `expected a number between ${min} and ${max}, got "${v}"`);
  return n;
}

export function bool(env: Env, name: string, fallback: boolean): boolean {
  const v = str(env, name);
  if (v === null) return fallback;
  const lower = v.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(lower)) return true;
  if (['false', '0', 'no', 'off'].includes(lower)) return false;
  throw new ConfigError(name, `expected true or false, got "${v}"`);
}

export function duration(env: Env, name: string, fallback: string): number {
  const v = str(env, name) ?? fallback;
  const ms = parseDuration(v);
  if (ms === null || ms <= 0)
    throw new ConfigError(name, `expected a duration such as 15m, 900s or 900000, got "${v}"`);
  return ms;
}

/**
 * The `bytes` package reads what its regular expression does not match as `parseInt` would (`12abc` is 12, `-1mb` a
 * negative size); only its documented syntax is let through: a number, optional spaces, an optional binary unit.
 */
const SIZE = /^\s*\d+(?:\.\d+)?\s*(?:b|kb|mb|gb|tb)?\s*$/i;

/** A size as Directus writes it (the `bytes` package's format): `1mb`, `500kb`, `1.5MB`, `2048`; 1kb = 1024 bytes. */
export function size(env: Env, name: string, fallback: string, examples: string): number {
  const v = str(env, name) ?? fallback;
  const parsed = SIZE.test(v) ? bytes.parse(v.replace(/\s+/g, '')) : null;
  if (parsed === null || parsed <= 0 || !Number.isSafeInteger(parsed))
    throw new ConfigError(name, `expected a size such as ${examples}, got "${v}"`);
  return parsed;
}
