/**
 * Invitations (Directus docs: Users — invite): who may create users may invite; each new address becomes a user
 * with status `invited` and the role given, and is mailed a one-time link. Inviting an address whose user is still
 * `invited` sends a new link (the old one stops working); addresses of other users are skipped silently, as
 * Directus does. Accepting spends the link, sets the password (policy checked first) and activates the user.
 */
import type { UsersRepository } from '../db/repositories/users.js';
import { InvalidPayloadError, InvalidTokenError } from '../errors/catalogue.js';
import type { Mailer } from '../mail/mailer.js';
import type { Accountability } from '../permissions/accountability.js';
import { checkInvite, checkTokenAndPassword } from '../request/account-bodies.js';
import type { Body } from '../request/auth-bodies.js';
import { linkBase, withToken } from './account-links.js';
import type { AccountTokens } from './account-tokens.js';
import type { AccountWrites } from './account-writes.js';
import { humanDuration } from './human-duration.js';

export interface InviteDeps {
  tokens: AccountTokens;
  writes: AccountWrites;
  users: UsersRepository;
  mailer: Mailer;
  allowList: readonly string[];
  publicUrl: string;
  ttlMs: number;
}

export class InviteService {
  constructor(private readonly deps: InviteDeps) {}

  async invite(body: Body, accountability: Accountability): Promise<void> {
    const ip = accountability.ip;
    const { email, role, invite_url } = checkInvite(body);
    const base = linkBase(invite_url, this.deps.allowList, 'invite_url', this.deps.publicUrl, '/admin/accept-invite');
    // FORBIDDEN unless the caller may create users, re-invites included.
    await this.deps.writes.canCreate(accountability);
    const addresses = [...new Set((Array.isArray(email) ? email : [email]).map((e) => e.trim().toLowerCase()))];
    for (const address of addresses) {
      const account = await this.deps.users.account(address);
      if (account && account.status !== 'invited') continue;
      const id =
        account?.id ?? (await this.deps.writes.create({ email: address, role, status: 'invited' }, accountability, ip));
      const token = await this.deps.tokens.issue(id, 'invite', this.deps.ttlMs);
      this.deps.mailer.send('user-invitation', address, {
        url: withToken(base, token),
        email: address,
        expires: humanDuration(this.deps.ttlMs),
      });
    }
  }

  async accept(body: Body, ip: string | null): Promise<void> {
    const { token, password } = checkTokenAndPassword(body);
    if ((await this.deps.tokens.peek(token, 'invite')) === null) throw new InvalidTokenError();
    await this.deps.writes.checkPassword(password);
    const user = await this.deps.tokens.spend(token, 'invite');
    if (user === null) throw new InvalidTokenError();
    const account = await this.deps.users.accountById(user);
    if (account?.status !== 'invited')
      throw new InvalidPayloadError(`Email address ${account?.email ?? ''} hasn't been invited`);
    await this.deps.writes.update(user, { password, status: 'active' }, ip);
  }
}
