/**
 * Who may read /metrics: a scraper sending one of METRICS_TOKENS as `Authorization: Bearer <token>` (Prometheus's
 * `authorization` default) or `Metrics <token>` (Directus's scheme), or an admin's own token, as Directus allows.
 * Tokens are compared by their SHA-256 digests with timingSafeEqual, against every configured token without stopping
 * at a match, so neither the answer's time nor a partial match tells a guesser anything.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const SCHEME = /^(bearer|metrics)\s+(\S+)\s*$/i;

export interface ScrapeCredential {
  scheme: 'bearer' | 'metrics';
  token: string;
}

/** The credential of an Authorization header, or null when it has none of the two schemes. */
export function scrapeCredential(header: string | undefined): ScrapeCredential | null {
  const match = header === undefined ? null : SCHEME.exec(header);
  if (!match) return null;
  return { scheme: match[1]!.toLowerCase() as ScrapeCredential['scheme'], token: match[2]! };
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

export class ScrapeTokens {
  private readonly digests: Buffer[];

  constructor(tokens: readonly string[]) {
    this.digests = tokens.map(digest);
  }

  /** Whether `token` is one of the configured tokens (in constant time over them all). */
  matches(token: string): boolean {
    const given = digest(token);
    let found = false;
    for (const known of this.digests) found = timingSafeEqual(given, known) || found;
    return found;
  }
}
