import { Algorithm, hash, verify } from '@node-rs/argon2';
import type { HashConfig } from '../config/hash-config.js';

const ALGORITHMS = [Algorithm.Argon2d, Algorithm.Argon2i, Algorithm.Argon2id] as const;

/** Runs on the libuv pool, off the event loop; with the HASH_* settings (config/hash-config.ts). */
export function hashPassword(password: string, config: HashConfig): Promise<string> {
  const { memoryCost, timeCost, parallelism, outputLen, type } = config;
  return hash(password, { algorithm: ALGORITHMS[type], memoryCost, timeCost, parallelism, outputLen });
}

/** By the parameters the hash was made with, whatever today's settings. */
export async function verifyPassword(hashed: string, password: string): Promise<boolean> {
  try {
    return await verify(hashed, password);
  } catch {
    return false;
  }
}
