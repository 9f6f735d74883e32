/** Login (json mode) — credentials → access token + refresh token. */
import { createHash, randomBytes } from 'node:crypto';
import { AccessTokens } from '../auth/access-tokens.js';
import { verifyPassword } from '../auth/passwords.js';
import { loadUserAccountability } from '../auth/user-accountability.js';
import type { Config } from '../config/config.js';
import type { Database } from '../db/connection.js';
import { InvalidCredentialsError, InvalidPayloadError } from '../errors/catalogue.js';

const REFRESH_TOKEN_TTL_MS = 7 * 86_400_000;

export interface LoginInput {
  email: string;
  password: string;
  mode?: string;
  otp?: string;
}

export interface LoginResult {
  access_token: string;
  expires: number;
  refresh_token: string;
}

export class AuthService {
  private readonly tokens: AccessTokens;

  constructor(
    private readonly db: Database,
    secret: string,
    private readonly config: Pick<Config, 'accessTokenTtlMs' | 'loginStallTimeMs'>,
  ) {
    this.tokens = new AccessTokens(secret, config.accessTokenTtlMs);
  }

  async login(input: LoginInput, context: { ip?: string | null; userAgent?: string | null } = {}): Promise<LoginResult> {
    for (const key of ['email', 'password'] as const) {
      if (typeof input[key] !== 'string' || input[key] === '') throw new InvalidPayloadError(`"${key}" is required`);
    }
    const started = Date.now();
    const user = await this.db.knex('service_users').select('id', 'role', 'password', 'status').whereRaw('lower(email) = ?', [input.email.toLowerCase()]).first();
    const ok = user && user.status === 'active' && typeof user.password === 'string' && (await verifyPassword(user.password, input.password));
    if (!ok) {
      // Unknown users, wrong passwords and inactive accounts all answer after the same minimum time.
      const wait = this.config.loginStallTimeMs - (Date.now() - started);
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      throw new InvalidCredentialsError();
    }

    const accountability = await loadUserAccountability(this.db.knex, 'id', String(user.id));
    const { token, expires } = this.tokens.issue({
      id: String(user.id),
      role: user.role ?? null,
      admin_access: accountability?.admin ?? false,
      app_access: accountability?.app ?? false,
    });
    const refreshToken = randomBytes(48).toString('base64url');
    await this.db.knex('service_sessions').insert({
      token: createHash('sha256').update(refreshToken).digest('base64url'),
      user: user.id,
      expires: new Date(Date.now() + REFRESH_TOKEN_TTL_MS),
      ip: context.ip ?? null,
      user_agent: context.userAgent ?? null,
    });
    await this.db.knex('service_users').update({ last_access: new Date() }).where('id', user.id);
    return { access_token: token, expires, refresh_token: refreshToken };
  }
}
