/** Two-factor setup for the signed-in user (Directus docs: Authentication): generate (password re-checked), enable, disable. */
import { verifyPassword } from './passwords.js';
import { newTfaSecret, otpValid } from './tfa.js';
import { systemClock, type Clock } from '../config/clock.js';
import type { Database } from '../db/connection.js';
import { UsersRepository, type TfaUser } from '../db/repositories/users.js';
import type { ChangeEvents } from '../engine/write/change-events.js';
import { InvalidCredentialsError, InvalidPayloadError } from '../errors/catalogue.js';
import { checkTfaDisable, checkTfaEnable, checkTfaGenerate } from '../request/auth-bodies.js';

export class TfaService {
  private readonly users: UsersRepository;

  constructor(
    db: Database,
    private readonly issuer: string,
    private readonly clock: Clock = systemClock,
    /** The user row's change is announced as the item writer's are (Directus writes it through its items service). */
    private readonly changes: ChangeEvents | null = null,
  ) {
    this.users = new UsersRepository(db);
  }

  async generate(user: string | null, body: Record<string, unknown>): Promise<{ secret: string; otpauth_url: string }> {
    const { password } = checkTfaGenerate(body);
    const row = await this.user(user);
    if (typeof row.password !== 'string' || !(await verifyPassword(row.password, password)))
      throw new InvalidCredentialsError();
    if (row.tfa_secret) throw new InvalidPayloadError('Two-factor authentication is already enabled for this user');
    return newTfaSecret(String(row.email), this.issuer);
  }

  async enable(user: string | null, body: Record<string, unknown>): Promise<void> {
    const { secret, otp } = checkTfaEnable(body);
    const row = await this.user(user);
    if (row.tfa_secret) throw new InvalidPayloadError('Two-factor authentication is already enabled for this user');
    // Directus 11 answers a wrong code here as a bad payload (401 would make SDKs refresh their token and retry).
    if (!otpValid(secret, otp, this.clock.now())) throw new InvalidPayloadError('"otp" is invalid');
    await this.users.setTfaSecret(row.id, secret);
    await this.changes?.announce('service_users', 'update', [row.id]);
  }

  async disable(user: string | null, body: Record<string, unknown>): Promise<void> {
    const { otp } = checkTfaDisable(body);
    const row = await this.user(user);
    if (!row.tfa_secret || !otpValid(String(row.tfa_secret), otp, this.clock.now()))
      throw new InvalidPayloadError('"otp" is invalid');
    await this.users.setTfaSecret(row.id, null);
    await this.changes?.announce('service_users', 'update', [row.id]);
  }

  private async user(id: string | null): Promise<TfaUser> {
    if (!id) throw new InvalidCredentialsError();
    const row = await this.users.forTfa(id);
    if (!row) throw new InvalidCredentialsError();
    return row;
  }
}
