/**
 * Start-up: mail (transport, templates, queue) and the account flows that send it — password reset, invitations,
 * registration — over the items writer, the sessions and the settings.
 */
import { AccountTokens } from '../auth/account-tokens.js';
import { AccountWrites } from '../auth/account-writes.js';
import { InviteService } from '../auth/invite-service.js';
import type { LoginLiveness } from '../auth/login-liveness.js';
import { PasswordResetService } from '../auth/password-reset-service.js';
import { RegistrationService } from '../auth/registration-service.js';
import { Sessions } from '../auth/sessions.js';
import { consume, limiter } from '../bus/rate-limiters.js';
import type { RedisClient } from '../bus/redis-connection.js';
import type { Clock } from '../config/clock.js';
import type { Config } from '../config/config.js';
import type { Database } from '../db/connection.js';
import { UsersRepository } from '../db/repositories/users.js';
import type { ItemsWriter } from '../engine/write/items-writer.js';
import { Mailer } from '../mail/mailer.js';
import { MentionMailer } from '../mail/mention-mail.js';
import type { MentionNotices } from '../engine/versions/mention-notices.js';
import type { SettingsService } from '../project/settings-service.js';
import type { StartLog } from './start-log.js';

export interface MailAccountParts {
  db: Database;
  config: Config;
  redis: RedisClient | null;
  logins: LoginLiveness;
  clock: Clock;
  writer: ItemsWriter;
  settings: SettingsService;
  /** A comment's mentions: once the mailer exists, they are mailed through it too. */
  mentions?: MentionNotices;
  log: StartLog;
}

export interface MailAccounts {
  mailer: Mailer;
  passwordReset: PasswordResetService;
  invites: InviteService;
  registration: RegistrationService;
}

/** A throttle over a limiter, or nothing when the limit is off. */
function throttle(
  name: string,
  limit: { points: number; durationMs: number } | null,
  parts: MailAccountParts,
): (key: string) => Promise<void> {
  if (!limit) return async () => {};
  const { config, redis } = parts;
  const store = config.rateLimiter.store === 'redis' ? redis : null;
  const taken = limiter(name, limit, store, config.redis?.namespace ?? 'strata');
  return (key) => consume(taken, key);
}

export function buildMailAccounts(parts: MailAccountParts): MailAccounts {
  const { db, config, clock, settings } = parts;
  const email = config.email;
  // The objects logged are built by the mail code from codes and domains only: nothing secret to redact.
  const line = (object: unknown, msg: string) => `${msg} ${JSON.stringify(object)}`;
  const log = {
    warn: (object: unknown, msg: string) => parts.log.warn(line(object, msg)),
    info: (object: unknown, msg: string) => parts.log.info(line(object, msg)),
  };
  const mailer = new Mailer({
    config: email,
    publicUrl: config.docs.publicUrl,
    project: () => settings.mailProject(),
    log,
  });
  mailer.verify();
  parts.mentions?.mailTo(new MentionMailer(mailer));
  const tokens = new AccountTokens(db, clock);
  const users = new UsersRepository(db);
  const writes = new AccountWrites({
    writer: parts.writer,
    sessions: new Sessions(db, clock),
    logins: parts.logins,
    passwordPolicy: () => settings.passwordPolicy(),
  });
  const publicUrl = config.docs.publicUrl;
  const common = { tokens, writes, users, mailer, publicUrl, log };
  return {
    mailer,
    passwordReset: new PasswordResetService({
      ...common,
      throttle: throttle('password-request', email.passwordRequestLimit, parts),
      allowList: email.allowLists.passwordReset,
      ttlMs: email.passwordResetTtlMs,
      stallMs: config.loginStallTimeMs,
    }),
    invites: new InviteService({ ...common, allowList: email.allowLists.userInvite, ttlMs: email.inviteTtlMs }),
    registration: new RegistrationService({
      ...common,
      settings: () => settings.registration(),
      throttle: throttle('registration', email.registrationLimit, parts),
      allowList: email.allowLists.userRegister,
      ttlMs: email.registerVerifyTtlMs,
      stallMs: email.registerStallMs,
    }),
  };
}
