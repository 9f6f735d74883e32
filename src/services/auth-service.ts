/** Login (json mode) — credentials → access token + refresh token. */
import { createHash, randomBytes } from 'node:crypto';
import { AccessTokens } from '../auth/access-tokens.js';
import { verifyPassword } from '../auth/passwords.js';
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

    const flags = await this.flags(user.id, user.role);
    const { token, expires } = this.tokens.issue({ id: String(user.id), role: user.role ?? null, ...flags });
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

  /** Informational admin/app claims (recomputed from policies on every request anyway). */
  private async flags(userId: string, role: string | null): Promise<{ admin_access: boolean; app_access: boolean }> {
    const query = this.db.knex('service_access as a').join('service_policies as p', 'p.id', 'a.policy').select('p.admin_access', 'p.app_access').where('a.user', userId);
    if (role) query.orWhere('a.role', role);
    const rows = await query;
    const flag = (v: unknown) => v === true || v === 1 || v === '1';
    return { admin_access: rows.some((r) => flag(r.admin_access)), app_access: rows.some((r) => flag(r.app_access) || flag(r.admin_access)) };
  }
}
