/**
 * Forgotten passwords (Directus docs: Authentication — password reset). A request answers 204 whoever the address
 * names, after the same minimum time (the login stall): the lookup, the token and the mail happen beside the answer,
 * not before it, so neither the answer nor its timing tells whether an account exists. Requests are limited per
 * client IP and per address. A reset spends its one-time token, sets the password (policy checked first, so a
 * refused password leaves the link usable) and ends every session of the user.
 */
import type { Mailer } from '../mail/mailer.js';
import { InvalidTokenError } from '../errors/catalogue.js';
import { checkPasswordRequest, checkTokenAndPassword } from '../request/account-bodies.js';
import type { Body } from '../request/auth-bodies.js';
import type { UsersRepository } from '../db/repositories/users.js';
import { linkBase, withToken } from './account-links.js';
import type { AccountTokens } from './account-tokens.js';
import type { AccountWrites } from './account-writes.js';
import type { ClientInfo } from './auth-service.js';
import { humanDuration } from './human-duration.js';

export interface PasswordResetDeps {
  tokens: AccountTokens;
  writes: AccountWrites;
  users: UsersRepository;
  mailer: Mailer;
  /** Takes a point for the key (429 over the limit). */
  throttle: (key: string) => Promise<void>;
  allowList: readonly string[];
  publicUrl: string;
  ttlMs: number;
  stallMs: number;
  log: { warn(object: unknown, msg: string): void };
}

export class PasswordResetService {
  constructor(private readonly deps: PasswordResetDeps) {}

  async request(body: Body, client: ClientInfo): Promise<void> {
    const { email, reset_url } = checkPasswordRequest(body);
    const base = linkBase(reset_url, this.deps.allowList, 'reset_url', this.deps.publicUrl, '/admin/reset-password');
    await this.deps.throttle(`ip|${client.ip}`);
    await this.deps.throttle(`email|${email.toLowerCase()}`);
    const started = Date.now();
    // Never awaited: what it finds must not change when the answer leaves. The mail is queued only once the token
    // is stored, so the link works by the time it arrives.
    void this.mailLink(email, base).catch((error: unknown) =>
      this.deps.log.warn({ code: (error as { code?: unknown }).code }, 'Password reset request failed'),
    );
    const wait = this.deps.stallMs - (Date.now() - started);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }

  async reset(body: Body, ip: string | null): Promise<void> {
    const { token, password } = checkTokenAndPassword(body);
    if ((await this.deps.tokens.peek(token, 'password-reset')) === null) throw new InvalidTokenError();
    await this.deps.writes.checkPassword(password);
    const user = await this.deps.tokens.spend(token, 'password-reset');
    if (user === null) throw new InvalidTokenError();
    const account = await this.deps.users.accountById(user);
    // A user suspended or archived since the mail was sent does not get back in by it.
    if (account?.status !== 'active') throw new InvalidTokenError();
    await this.deps.writes.update(user, { password }, ip);
    await this.deps.writes.endSessions(user);
  }

  private async mailLink(email: string, base: string): Promise<void> {
    const account = await this.deps.users.account(email);
    if (account?.status !== 'active') return;
    const token = await this.deps.tokens.issue(account.id, 'password-reset', this.deps.ttlMs);
    this.deps.mailer.send('password-reset', account.email, {
      url: withToken(base, token),
      email: account.email,
      expires: humanDuration(this.deps.ttlMs),
    });
  }
}
