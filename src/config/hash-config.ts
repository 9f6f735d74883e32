/**
 * argon2 parameters of new password hashes, with Directus's names and defaults (HASH_*, Directus docs: Configuration
 * → Security): hashes move between the two both ways, and a stored hash is verified by the parameters written in it,
 * so changing them affects only hashes made afterwards.
 */
import { ConfigError, int, type Env } from './env-values.js';

export interface HashConfig {
  /** KiB of memory per hash (HASH_MEMORY_COST). */
  memoryCost: number;
  /** Passes over that memory (HASH_TIME_COST). */
  timeCost: number;
  /** Lanes (HASH_PARALLELISM). */
  parallelism: number;
  /** Bytes of the hash (HASH_HASH_LENGTH). */
  outputLen: number;
  /** 0 argon2d, 1 argon2i, 2 argon2id (HASH_TYPE). */
  type: 0 | 1 | 2;
}

export function readHashConfig(env: Env): HashConfig {
  const parallelism = int(env, 'HASH_PARALLELISM', 1, 1, 255);
  const memoryCost = int(env, 'HASH_MEMORY_COST', 4096, 8, 4_194_304);
  // argon2 needs 8 KiB per lane.
  if (memoryCost < 8 * parallelism)
    throw new ConfigError('HASH_MEMORY_COST', `must be at least 8 × HASH_PARALLELISM (${8 * parallelism})`);
  return {
    memoryCost,
    timeCost: int(env, 'HASH_TIME_COST', 3, 1, 1000),
    parallelism,
    outputLen: int(env, 'HASH_HASH_LENGTH', 32, 4, 1024),
    type: int(env, 'HASH_TYPE', 2, 0, 2) as 0 | 1 | 2,
  };
}
