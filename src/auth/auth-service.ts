/**
 * Login, refresh and logout in the three modes of Directus docs: Authentication — json (tokens in the body), cookie (refresh
 * token in an httpOnly cookie), session (a session JWT in an httpOnly cookie) — with two-factor codes, IP
 * allow-lists and suspension after too many failed logins. Cookies are described here and set by the route.
 */
import { AccessTokens, looksLikeJwt } from './access-tokens.js';
import { allowList, ipAllowed } from './ip-allow-list.js';
import type { LoginAttempts } from './login-attempts.js';
import { verifyPassword } from './passwords.js';
import { RefusedCredentialsError } from './refused-credentials.js';
import type { LoginLiveness } from './login-liveness.js';
import { newFamily, Sessions } from './sessions.js';
import { otpValid } from './tfa.js';
import { loadUserAccountability, type UserAccountability } from './user-accountability.js';
import type { CookieConfig } from '../config/auth-config.js';
import { systemClock, type Clock } from '../config/clock.js';
import type { Config } from '../config/config.js';
import type { Database } from '../db/connection.js';
import { ActivityRepository } from '../db/repositories/activity.js';
import { SettingsRepository } from '../db/repositories/settings.js';
import { UsersRepository } from '../db/repositories/users.js';
import type { EventEmitter } from '../engine/events/event-emitter.js';
import type { ChangeEvents } from '../engine/write/change-events.js';
import {
  InvalidCredentialsError,
  InvalidIpError,
  InvalidOtpError,
  InvalidPayloadError,
  InvalidProviderError,
  ServiceError,
  UserSuspendedError,
} from '../errors/catalogue.js';
import { checkLogin, checkMode, type AuthMode } from '../request/auth-bodies.js';

export type { AuthMode };

export interface ClientInfo {
  ip: string | null;
  userAgent: string | null;
  origin?: string | null;
}

/** A cookie to set (value) or clear (null). */
export interface CookieChange {
  cookie: CookieConfig;
  value: string | null;
  maxAgeMs: number;
}

export interface AuthResult {
  data: Record<string, unknown>;
  cookies: CookieChange[];
}

export class AuthService {
  private readonly accessTokens: AccessTokens;
  private readonly sessionTokens: AccessTokens;
  private readonly sessions: Sessions;
  private readonly users: UsersRepository;
  private readonly settings: SettingsRepository;
  private readonly activity: ActivityRepository;

  /** Asked at every refresh (sign-on providers that re-check their users); throws to refuse the refresh. */
  private refreshCheck: ((user: string) => Promise<void>) | null = null;

  constructor(
    private readonly db: Database,
    secret: string,
    private readonly config: Pick<Config, 'accessTokenTtlMs' | 'loginStallTimeMs' | 'auth' | 'authProviders'>,
    private readonly attempts: LoginAttempts,
    /** Takes a point of the login limiter for `<email>|<ip>` (429 over it); REST and GraphQL logins alike. */
    private readonly throttle: (key: string) => Promise<void> = async () => {},
    /** Ends logins on logout, on every instance. */
    private readonly logins: LoginLiveness | null = null,
    private readonly clock: Clock = systemClock,
    /** A user suspended after too many failed logins is an update of its row, announced as the writer's are. */
    private readonly changes: ChangeEvents | null = null,
    /** Hook events: `auth.login` (filter before the password is checked, action after, success or fail). */
    private readonly events: EventEmitter | null = null,
  ) {
    this.accessTokens = new AccessTokens(secret, config.accessTokenTtlMs, clock);
    this.sessionTokens = new AccessTokens(secret, config.auth.sessionCookieTtlMs, clock);
    this.sessions = new Sessions(db, clock);
    this.users = new UsersRepository(db);
    this.settings = new SettingsRepository(db);
    this.activity = new ActivityRepository(db);
  }

  async login(
    body: Record<string, unknown>,
    client: ClientInfo,
    emailShape: 'checked' | 'unchecked' = 'checked',
  ): Promise<AuthResult> {
    // Guessing passwords is slowed per account and client IP, on top of the per-IP limit every route has.
    await this.throttle(`${String(body.email).toLowerCase()}|${client.ip}`);
    const checked = checkLogin(body, emailShape);
    const mode = checked.mode ?? 'json';
    const email = checked.email.toLowerCase();
    const started = Date.now();
    const stall = () => this.stallSince(started);

    // AUTH_DISABLE_DEFAULT: only the configured providers sign people in (Directus: INVALID_PROVIDER).
    if (this.config.authProviders.disableDefault) throw new InvalidProviderError();
    const user = await this.users.forLogin(email);
    const hookPayload = { email, mode };
    const provider = 'default';
    const loginFailed = () =>
      this.events?.emitAction(
        'auth.login',
        { payload: hookPayload, status: 'fail', user: user ? String(user.id) : null, provider },
        { accountability: null, schema: null, database: this.db },
      );
    if (this.events?.hasFilter('auth.login'))
      await this.events.emitFilter(
        'auth.login',
        hookPayload,
        { status: 'pending', user: user ? String(user.id) : null, provider },
        { accountability: null, schema: null, database: this.db },
      );
    const passwordOk = typeof user?.password === 'string' && (await verifyPassword(user.password, checked.password));
    // Every refused login is activity, before the answer: on the account, or on the email when it names none.
    const refuseAs = this.refuser(user ? String(user.id) : email, client);
    const refuse = (error: Error): Promise<never> => {
      loginFailed();
      return refuseAs(error);
    };
    // An account of an identity provider never signs in with a password here, whatever its row holds.
    if (!user || user.status !== 'active' || user.provider !== 'default') {
      await stall();
      return refuse(new InvalidCredentialsError());
    }
    const allowed = await this.allowedAttempts();
    if (!passwordOk) {
      await this.failedAttempt(String(user.id), allowed);
      await stall();
      return refuse(new InvalidCredentialsError());
    }
    return this.complete(user, mode, body.otp, client, allowed, refuse, { payload: hookPayload, provider });
  }

  /**
   * A login through a sign-on provider that checks the credentials itself (ldap; `authenticate` throws
   * INVALID_CREDENTIALS when it refuses them): the same throttle, stall, status check, two-factor code, failed-login
   * activity and session as `login`. AUTH_DISABLE_DEFAULT does not concern it.
   */
  async loginWith(
    account: { provider: string; identifier: string },
    mode: AuthMode,
    otp: unknown,
    client: ClientInfo,
    authenticate: () => Promise<{ id: string; status: string; tfa_secret: string | null }>,
  ): Promise<AuthResult> {
    // The provider's name keeps one directory's "alice" apart from another's, and from an email.
    const key = `${account.provider}:${account.identifier}`;
    await this.throttle(`${key.toLowerCase()}|${client.ip}`);
    const started = Date.now();
    let user;
    try {
      user = await authenticate();
    } catch (error) {
      if (error instanceof RefusedCredentialsError) await this.failedAttempt(error.user, await this.allowedAttempts());
      if (error instanceof InvalidCredentialsError) await this.stallSince(started);
      // A refusal is activity as a password login's; a provider that failed (5xx) refused no one.
      if (error instanceof ServiceError && error.status < 500)
        return this.refuser(error instanceof RefusedCredentialsError ? error.user : key, client)(error);
      throw error;
    }
    const refuse = this.refuser(String(user.id), client);
    if (user.status !== 'active') {
      await this.stallSince(started);
      return refuse(new InvalidCredentialsError());
    }
    return this.complete(user, mode, otp, client, await this.allowedAttempts(), refuse, {
      payload: { identifier: account.identifier, mode },
      provider: account.provider,
    });
  }

  /** Records a refused login on `item` (an account's id, else what the client named), then throws `error`. */
  private refuser(item: string, client: ClientInfo): (error: Error) => Promise<never> {
    return async (error) => {
      const seen = { ip: client.ip, userAgent: client.userAgent, origin: client.origin ?? null };
      const at = new Date(this.clock.now());
      await this.activity.recordFailedLogin({ user: null, item: item.slice(0, 255), ...seen, at });
      throw error;
    };
  }

  /** A wrong password for a known user: one attempt less; none left suspends the user. */
  private async failedAttempt(user: string, allowed: number | null): Promise<void> {
    if (allowed !== null && (await this.attempts.failed(user, allowed))) {
      await this.users.setStatus(user, 'suspended');
      await this.changes?.announce('service_users', 'update', [user]);
    }
  }

  /** Unknown users, wrong passwords and inactive accounts all answer after the same minimum time. */
  private async stallSince(started: number): Promise<void> {
    const wait = this.config.loginStallTimeMs - (Date.now() - started);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }

  /** The credentials were good: the two-factor code, the IP allow-list, then the session and its tokens. */
  private async complete(
    user: { id: string; tfa_secret: string | null },
    mode: AuthMode,
    otp: unknown,
    client: ClientInfo,
    allowed: number | null,
    refuse: (error: Error) => Promise<never>,
    login: { payload: Record<string, unknown>; provider: string },
  ): Promise<AuthResult> {
    if (user.tfa_secret && !otpValid(String(user.tfa_secret), otp, this.clock.now()))
      return refuse(new InvalidOtpError());
    const accountability = await this.allowedFrom(String(user.id), client.ip).catch(refuse);
    if (allowed !== null) await this.attempts.reset(String(user.id), allowed);
    return this.open(accountability, mode, client, login);
  }

  /**
   * Signs in a user someone else vouched for (an identity provider): the same IP checks, session, activity and
   * tokens as a password login.
   */
  async signIn(user: string, mode: AuthMode, client: ClientInfo, provider = 'default'): Promise<AuthResult> {
    return this.open(await this.allowedFrom(user, client.ip), mode, client, { payload: { mode }, provider });
  }

  /** Opens the session; `login` is what the `auth.login` action hooks are told (Directus's payload and provider). */
  private async open(
    accountability: UserAccountability,
    mode: AuthMode,
    client: ClientInfo,
    login: { payload: Record<string, unknown>; provider: string },
  ): Promise<AuthResult> {
    const user = { id: accountability.user! };
    await this.users.touchLastAccess(user.id, new Date());
    const family = newFamily();
    const { raw: session, record } = this.sessions.prepare(String(user.id), this.ttl(mode), client, family);
    // As Directus: a successful login is activity, written with its session, before the tokens are handed out.
    const seen = { ip: client.ip, userAgent: client.userAgent, origin: client.origin ?? null };
    const at = new Date(this.clock.now());
    await this.activity.recordLogin({ user: String(user.id), item: String(user.id), ...seen, at }, record);
    const issued = this.issue(accountability, mode, session, family);
    this.events?.emitAction(
      'auth.login',
      { payload: login.payload, status: 'success', user: String(user.id), provider: login.provider },
      { accountability: null, schema: null, database: this.db },
    );
    return issued;
  }

  /** Installs the check every refresh runs after the user's status (one at most: the providers' together). */
  checkOnRefresh(check: (user: string) => Promise<void>): void {
    this.refreshCheck = check;
  }

  /** Refresh token from the body (json) or the refresh cookie (cookie), or the session cookie (session). */
  async refresh(
    body: Record<string, unknown>,
    cookies: Record<string, string | undefined>,
    client: ClientInfo,
  ): Promise<AuthResult> {
    const mode = checkMode(body) ?? (typeof body.refresh_token === 'string' ? 'json' : 'cookie');
    const raw = this.tokenFrom(body, cookies, mode);
    const session = await this.sessions.find(raw);
    if (!session) throw new InvalidCredentialsError();
    const user = await this.users.status(session.user);
    if (user?.status === 'suspended') throw new UserSuspendedError();
    if (user?.status !== 'active') throw new InvalidCredentialsError();
    await this.refreshCheck?.(session.user);
    const accountability = await this.allowedFrom(session.user, client.ip);
    const grace = mode === 'session' ? this.config.auth.sessionRefreshGracePeriodMs : 0;
    const rotated = await this.sessions.rotate(raw, this.ttl(mode), grace, client);
    if (!rotated) throw new InvalidCredentialsError();
    return this.issue(accountability, mode, rotated.token, rotated.family);
  }

  /** Ends the session; both cookies are cleared whatever the mode. */
  async logout(body: Record<string, unknown>, cookies: Record<string, string | undefined>): Promise<CookieChange[]> {
    const mode =
      checkMode(body) ??
      (typeof body.refresh_token === 'string'
        ? 'json'
        : cookies[this.config.auth.sessionCookie.name]
          ? 'session'
          : 'cookie');
    const raw = this.tokenFrom(body, cookies, mode);
    const family = (await this.sessions.find(raw))?.family ?? null;
    if (family) {
      // Every session of the login, and every access token issued for it, ends now.
      await this.sessions.removeFamily(family);
      await this.logins?.end(family);
    } else {
      await this.sessions.remove(raw);
    }
    return [this.clear(this.config.auth.refreshCookie), this.clear(this.config.auth.sessionCookie)];
  }

  /** Whether a session JWT's session is still live (logged-out sessions stop authenticating at once). */
  async sessionLive(raw: string): Promise<boolean> {
    return (await this.sessions.find(raw)) !== null;
  }

  private tokenFrom(
    body: Record<string, unknown>,
    cookies: Record<string, string | undefined>,
    mode: AuthMode,
  ): string {
    let raw: unknown;
    if (mode === 'session') {
      const jwt = cookies[this.config.auth.sessionCookie.name];
      raw = jwt && looksLikeJwt(jwt) ? this.sessionTokens.sessionOf(jwt) : null;
    } else {
      raw = typeof body.refresh_token === 'string' ? body.refresh_token : cookies[this.config.auth.refreshCookie.name];
    }
    if (typeof raw !== 'string' || raw === '')
      throw new InvalidPayloadError('The refresh token is required in either the payload or cookie');
    return raw;
  }

  private issue(
    accountability: UserAccountability,
    mode: AuthMode,
    sessionToken: string,
    family: string | null,
  ): AuthResult {
    const claims = {
      id: accountability.user!,
      role: accountability.role,
      admin_access: accountability.admin,
      app_access: accountability.app,
    };
    if (mode === 'session') {
      const { token, expires } = this.sessionTokens.issue({ ...claims, session: sessionToken });
      return {
        data: { expires },
        cookies: [
          { cookie: this.config.auth.sessionCookie, value: token, maxAgeMs: this.config.auth.sessionCookieTtlMs },
        ],
      };
    }
    const { token, expires } = this.accessTokens.issue(family ? { ...claims, sid: family } : claims);
    if (mode === 'cookie') {
      return {
        data: { access_token: token, expires },
        cookies: [
          { cookie: this.config.auth.refreshCookie, value: sessionToken, maxAgeMs: this.config.auth.refreshTokenTtlMs },
        ],
      };
    }
    return { data: { access_token: token, expires, refresh_token: sessionToken }, cookies: [] };
  }

  private ttl(mode: AuthMode): number {
    return mode === 'session' ? this.config.auth.sessionCookieTtlMs : this.config.auth.refreshTokenTtlMs;
  }

  private clear(cookie: CookieConfig): CookieChange {
    return { cookie, value: null, maxAgeMs: 0 };
  }

  /**
   * The user's roles, policies and flags (for the token's claims); 401 INVALID_IP when their policies carry
   * allow-lists and the client is on none of them.
   */
  private async allowedFrom(user: string, ip: string | null): Promise<UserAccountability> {
    const accountability = await loadUserAccountability(this.db, 'id', user);
    if (!accountability) throw new InvalidCredentialsError();
    if (!ipAllowed(accountability.ipAccess.map(allowList), ip)) throw new InvalidIpError();
    return accountability;
  }

  private async allowedAttempts(): Promise<number | null> {
    const row = await this.settings.loginAttempts();
    const value = row?.auth_login_attempts;
    return value === null || value === undefined ? (row ? null : 25) : Number(value) > 0 ? Number(value) : null;
  }
}
