import { Algorithm, hash, verify } from '@node-rs/argon2';

/** Directus's argon2id parameters, so hashes move between the two in both directions. */
const OPTIONS = { algorithm: Algorithm.Argon2id, memoryCost: 65536, timeCost: 3, parallelism: 4, outputLen: 32 };

/** Runs on the libuv pool, off the event loop. */
export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

export async function verifyPassword(hashed: string, password: string): Promise<boolean> {
  try {
    return await verify(hashed, password);
  } catch {
    return false;
  }
}
