/**
 * The user rows the mail flows change (a new password, an activated account, an invited or registered user) go
 * through the items writer as a system write: hashing, the password policy, the address check, activity and change
 * events are those of any write to service_users. Ending a user's sessions uses the logout path (login-liveness).
 */
import { randomUUID } from 'node:crypto';
import type { Accountability } from '../permissions/accountability.js';
import type { ItemsWriter } from '../engine/write/items-writer.js';
import type { Payload } from '../request/write-body.js';
import { FailedValidationError } from '../errors/catalogue.js';
import { regexOf } from '../plan/validation.js';
import type { LoginLiveness } from './login-liveness.js';
import type { Sessions } from './sessions.js';

export interface AccountWritesDeps {
  writer: ItemsWriter;
  sessions: Sessions;
  logins: LoginLiveness | null;
  passwordPolicy: () => Promise<string | null>;
}

/** The flows act for nobody in particular: as Directus, their writes carry no user. */
function system(ip: string | null): Accountability {
  return { user: null, role: null, roles: [], policies: [], admin: true, app: true, ip };
}

export class AccountWrites {
  constructor(private readonly deps: AccountWritesDeps) {}

  /** FAILED_VALIDATION when the password misses the settings' policy; checked before a token is spent. */
  async checkPassword(password: string): Promise<void> {
    const policy = await this.deps.passwordPolicy();
    const pattern = policy ? regexOf(policy) : null;
    if (pattern && !pattern.test(password))
      throw new FailedValidationError('password', [], 'regex', "Provided password doesn't match password policy.");
  }

  async update(user: string, payload: Payload, ip: string | null): Promise<void> {
    const target = await this.deps.writer.open('service_users', 'update', system(ip), { system: true });
    await this.deps.writer.updateOne(target, user, payload, { fields: ['id'] });
  }

  /** FORBIDDEN unless `accountability` may create users. */
  async canCreate(accountability: Accountability): Promise<void> {
    await this.deps.writer.open('service_users', 'create', accountability, { system: true });
  }

  /** Creates a user as `accountability` may (an invitation: the caller's rights; registration: the system's). */
  async create(payload: Payload, accountability: Accountability | null, ip: string | null): Promise<string> {
    const target = await this.deps.writer.open('service_users', 'create', accountability ?? system(ip), {
      system: true,
    });
    const id = randomUUID();
    await this.deps.writer.create(target, [{ ...payload, id }], false, { fields: ['id'] });
    return id;
  }

  /** Every session of the user ends, and the access tokens of its logins stop working at once. */
  async endSessions(user: string): Promise<void> {
    for (const family of await this.deps.sessions.removeUser(user)) await this.deps.logins?.end(family);
  }
}
