/**
 * Refresh tokens and sessions (service_sessions): random opaque tokens, stored only as their SHA-256, with an
 * expiry. A refresh spends the old token; in session mode the old one keeps authenticating for a short grace
 * period so requests already on their way are not failed.
 */
import { createHash, randomBytes } from 'node:crypto';
import { systemClock, type Clock } from '../config/clock.js';
import type { Database } from '../db/connection.js';
import { SessionsRepository, type SessionRecord } from '../db/repositories/sessions.js';

export interface SessionRow {
  user: string;
  expires: Date;
  /** The login this session comes from (kept through refreshes); null for sessions older than families. */
  family: string | null;
}

/** A new login's family id (not secret: it only names the login in access tokens). */
export function newFamily(): string {
  return randomBytes(16).toString('base64url');
}

export function hashToken(raw: string): string {
  return createHash('sha256').update(raw).digest('base64url');
}

export class Sessions {
  private readonly rows: SessionsRepository;

  constructor(
    db: Database,
    private readonly clock: Clock = systemClock,
  ) {
    this.rows = new SessionsRepository(db);
  }

  async create(
    user: string,
    ttlMs: number,
    meta: { ip?: string | null; userAgent?: string | null; origin?: string | null } = {},
    family: string | null = newFamily(),
  ): Promise<string> {
    const { raw, record } = this.prepare(user, ttlMs, meta, family);
    await this.rows.insert(record);
    return raw;
  }

  /** A new session's token and row, for a caller that inserts the row with other rows in one transaction. */
  prepare(
    user: string,
    ttlMs: number,
    meta: { ip?: string | null; userAgent?: string | null; origin?: string | null } = {},
    family: string | null = newFamily(),
  ): { raw: string; record: SessionRecord } {
    const raw = randomBytes(48).toString('base64url');
    const record: SessionRecord = {
      token: hashToken(raw),
      user,
      family,
      expires: new Date(this.clock.now() + ttlMs),
      ip: meta.ip ?? null,
      user_agent: meta.userAgent ?? null,
      origin: meta.origin ?? null,
    };
    return { raw, record };
  }

  /** The live session of a raw token, or null (unknown, expired or spent). */
  async find(raw: string): Promise<SessionRow | null> {
    const row = await this.rows.byToken(hashToken(raw));
    if (!row) return null;
    const expires = new Date(row.expires);
    if (expires.getTime() <= this.clock.now()) return null;
    return { user: String(row.user), expires, family: row.family ?? null };
  }

  /** Whether any session of a login is still live (its access tokens are valid only while one is). */
  async familyLive(family: string): Promise<boolean> {
    const rows = await this.rows.expiriesOfFamily(family);
    const now = this.clock.now();
    return rows.some((row) => new Date(row.expires).getTime() > now);
  }

  /** Ends every session of a login. */
  async removeFamily(family: string): Promise<void> {
    await this.rows.deleteFamily(family);
  }

  /**
   * Spends `raw` and returns a new token for the same user, or null when `raw` was not live. Without a grace
   * period the old row is deleted in the same statement that claims it, so a token can be spent only once.
   */
  async rotate(
    raw: string,
    ttlMs: number,
    graceMs: number,
    meta: { ip?: string | null; userAgent?: string | null } = {},
  ): Promise<{ user: string; token: string; family: string | null } | null> {
    const session = await this.find(raw);
    if (!session) return null;
    const old = hashToken(raw);
    // The new row exists before the old one goes, so the login's family is never without a live session.
    const next = await this.create(session.user, ttlMs, meta, session.family);
    if (graceMs > 0) {
      const until = new Date(Math.min(session.expires.getTime(), this.clock.now() + graceMs));
      const claimed = await this.rows.claim(old, until, hashToken(next));
      if (claimed !== 1) {
        await this.remove(next);
        return null;
      }
      return { user: session.user, token: next, family: session.family };
    }
    const claimed = await this.rows.deleteToken(old);
    if (claimed !== 1) {
      await this.remove(next);
      return null;
    }
    return { user: session.user, token: next, family: session.family };
  }

  /** Ends every session of a user (a password reset): the logins they belonged to. */
  async removeUser(user: string): Promise<string[]> {
    const families = (await this.rows.familiesOfUser(user)).map((row) => row.family).filter((f): f is string => !!f);
    await this.rows.deleteOfUser(user);
    return families;
  }

  async remove(raw: string): Promise<void> {
    await this.rows.deleteToken(hashToken(raw));
  }
}
