/**
 * Public sign-up (Directus docs: Users — register): open only when the settings' `public_registration` is on; the
 * address must pass `public_registration_email_filter`; the user gets `public_registration_role`, and status
 * `unverified` until the mailed link is followed when `public_registration_verify_email` is on. Every check that
 * does not depend on who exists (body, password policy, URL, filter) answers before anything is looked up; the rest
 * (lookup, create, mail) runs beside a fixed stall, so an address already taken answers as a new one does — 204,
 * after the same time. Registering again while unverified sends a new link.
 */
import type { UsersRepository } from '../db/repositories/users.js';
import { ForbiddenError, InvalidTokenError } from '../errors/catalogue.js';
import type { Mailer } from '../mail/mailer.js';
import { evaluate } from '../plan/validation.js';
import type { RegistrationSettings } from '../project/settings-service.js';
import { checkRegistration, type Registration } from '../request/account-bodies.js';
import type { Body } from '../request/auth-bodies.js';
import { linkBase, withToken } from './account-links.js';
import type { AccountTokens } from './account-tokens.js';
import type { AccountWrites } from './account-writes.js';
import type { ClientInfo } from './auth-service.js';
import { humanDuration } from './human-duration.js';

export interface RegistrationDeps {
  tokens: AccountTokens;
  writes: AccountWrites;
  users: UsersRepository;
  mailer: Mailer;
  settings: () => Promise<RegistrationSettings>;
  throttle: (key: string) => Promise<void>;
  allowList: readonly string[];
  publicUrl: string;
  ttlMs: number;
  stallMs: number;
  log: { warn(object: unknown, msg: string): void };
}

export class RegistrationService {
  constructor(private readonly deps: RegistrationDeps) {}

  async register(body: Body, client: ClientInfo): Promise<void> {
    await this.deps.throttle(`ip|${client.ip}`);
    const input = checkRegistration(body);
    const settings = await this.deps.settings();
    if (!settings.enabled) throw new ForbiddenError();
    const base = settings.verifyEmail
      ? linkBase(
          input.verification_url,
          this.deps.allowList,
          'verification_url',
          this.deps.publicUrl,
          '/users/register/verify-email',
        )
      : null;
    await this.deps.writes.checkPassword(input.password);
    const started = Date.now();
    const stall = async () => {
      const wait = this.deps.stallMs - (Date.now() - started);
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    };
    if (settings.emailFilter && evaluate(settings.emailFilter, { email: input.email }).length > 0) {
      await stall();
      throw new ForbiddenError();
    }
    void this.signUp(input, settings, base, client.ip).catch((error: unknown) =>
      this.deps.log.warn({ code: (error as { code?: unknown }).code }, 'Registration failed'),
    );
    await stall();
  }

  /** GET /users/register/verify-email: spends the link and activates the user. */
  async verify(token: unknown, ip: string | null): Promise<void> {
    const user = await this.deps.tokens.spend(token, 'register');
    if (user === null) throw new InvalidTokenError();
    const account = await this.deps.users.accountById(user);
    if (account?.status !== 'unverified') throw new InvalidTokenError();
    await this.deps.writes.update(user, { status: 'active' }, ip);
  }

  private async signUp(
    input: Registration,
    settings: RegistrationSettings,
    base: string | null,
    ip: string | null,
  ): Promise<void> {
    const email = input.email.toLowerCase();
    const account = await this.deps.users.account(email);
    if (account && account.status !== 'unverified') return;
    const id =
      account?.id ??
      (await this.deps.writes.create(
        {
          email,
          password: input.password,
          first_name: input.first_name ?? null,
          last_name: input.last_name ?? null,
          role: settings.role,
          status: base ? 'unverified' : 'active',
        },
        null,
        ip,
      ));
    if (!base) return;
    const token = await this.deps.tokens.issue(id, 'register', this.deps.ttlMs);
    this.deps.mailer.send('user-registration', email, {
      url: withToken(base, token),
      email,
      expires: humanDuration(this.deps.ttlMs),
    });
  }
}
