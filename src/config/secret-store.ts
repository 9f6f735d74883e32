import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from './config.js';

/** SECRET when set; else the one kept in the data folder, generated on first start so tokens survive restarts. */
export function resolveSecret(config: Pick<Config, 'secret' | 'dataDir'>): string {
  if (config.secret) return config.secret;
  const file = path.join(config.dataDir, '.secret');
  if (existsSync(file)) {
    const stored = readFileSync(file, 'utf8').trim();
    if (stored.length >= 16) return stored;
  }
  const secret = randomBytes(48).toString('base64url');
  mkdirSync(config.dataDir, { recursive: true });
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}
