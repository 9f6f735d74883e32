/**
 * One-time tokens for the links mailed by the account flows (password reset, invitation, address check): 32 random
 * bytes, handed out once in the link and stored only as their SHA-256 with a purpose and an expiry. Spending a token
 * deletes its row in the statement that checks it, so two requests racing with one link cannot both succeed; a token
 * of one purpose never works for another; a new token of a purpose replaces the user's earlier ones.
 */
import { randomBytes } from 'node:crypto';
import { systemClock, type Clock } from '../config/clock.js';
import type { Database } from '../db/connection.js';
import { AccountTokensRepository } from '../db/repositories/account-tokens.js';
import { hashToken } from './sessions.js';

export type TokenPurpose = 'password-reset' | 'invite' | 'register';

/** Longest token accepted from a caller: anything longer is not one of ours (and is not hashed). */
const MAX_TOKEN_LENGTH = 128;

export class AccountTokens {
  private readonly rows: AccountTokensRepository;

  constructor(
    db: Database,
    private readonly clock: Clock = systemClock,
  ) {
    this.rows = new AccountTokensRepository(db);
  }

  async issue(user: string, purpose: TokenPurpose, ttlMs: number): Promise<string> {
    const now = this.clock.now();
    await this.rows.dropExpired(new Date(now));
    await this.rows.dropFor(user, purpose);
    const raw = randomBytes(32).toString('base64url');
    await this.rows.insert({ token: hashToken(raw), purpose, user, expires: new Date(now + ttlMs) });
    return raw;
  }

  /** The user of a live token, without spending it (checks before a write that may still be refused). */
  async peek(raw: unknown, purpose: TokenPurpose): Promise<string | null> {
    if (typeof raw !== 'string' || raw === '' || raw.length > MAX_TOKEN_LENGTH) return null;
    const row = await this.rows.find(hashToken(raw), purpose);
    if (!row || new Date(row.expires).getTime() <= this.clock.now()) return null;
    return String(row.user);
  }

  /** Spends a live token: its user, or null when it was unknown, expired or already spent. */
  async spend(raw: unknown, purpose: TokenPurpose): Promise<string | null> {
    const user = await this.peek(raw, purpose);
    if (user === null) return null;
    return (await this.rows.spend(hashToken(raw as string), purpose)) === 1 ? user : null;
  }
}
