/**
 * Mail and the account flows that send it (Directus docs: Email, and the URL allow-lists of password reset, invites
 * and registration). Only the `smtp` transport is built: any other EMAIL_TRANSPORT is refused at start, so a
 * configuration written for a transport Strata lacks fails loudly instead of dropping every mail.
 */
import { bool, ConfigError, duration, int, str, type Env } from './env-values.js';

export interface SmtpConfig {
  host: string;
  port: number;
  user: string | null;
  password: string | null;
  /** TLS from the first byte (port 465); otherwise STARTTLS when the server offers it. */
  secure: boolean;
  ignoreTls: boolean;
  pool: boolean;
  /** The name given in the SMTP greeting (EHLO). */
  name: string | null;
}

export interface EmailConfig {
  /** `smtp`, or null when mail is off (EMAIL_TRANSPORT unset): mails are logged as not sent, never queued. */
  transport: 'smtp' | null;
  smtp: SmtpConfig;
  from: string;
  /** Check the SMTP connection once at start and log the outcome (never fails the start). */
  verifySetup: boolean;
  /** A folder whose `<template>.liquid` files replace the built-in templates (base layout included). */
  templatesPath: string | null;
  /** Mails waiting to be sent, at most; more are dropped and logged (the request that caused them still succeeds). */
  queueMax: number;
  /** Where the links of each flow may point (`reset_url`, `invite_url`, `verification_url`). */
  allowLists: { passwordReset: string[]; userInvite: string[]; userRegister: string[] };
  /** Least time a registration takes, whether the address was new or taken (REGISTER_STALL_TIME, ms). */
  registerStallMs: number;
  passwordResetTtlMs: number;
  inviteTtlMs: number;
  registerVerifyTtlMs: number;
  /** Per-IP and per-address caps on password-reset requests (points per duration). */
  passwordRequestLimit: { points: number; durationMs: number } | null;
  /** Per-IP cap on POST /users/register (RATE_LIMITER_REGISTRATION_*), null when off. */
  registrationLimit: { points: number; durationMs: number } | null;
}

function list(env: Env, name: string): string[] {
  const urls = (str(env, name) ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const url of urls) {
    try {
      const parsed = new URL(url);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('scheme');
    } catch {
      throw new ConfigError(name, `expected a comma list of absolute http(s) URLs, got "${url}"`);
    }
  }
  return urls;
}

/** Durations in whole seconds, as Directus reads its RATE_LIMITER_* settings. */
function seconds(env: Env, prefix: string, points: number, duration: number): { points: number; durationMs: number } {
  return {
    points: int(env, `${prefix}_POINTS`, points, 1),
    durationMs: int(env, `${prefix}_DURATION`, duration, 1, 86_400) * 1000,
  };
}

export function readEmailConfig(env: Env): EmailConfig {
  const transport = str(env, 'EMAIL_TRANSPORT')?.trim().toLowerCase() ?? null;
  if (transport !== null && transport !== 'smtp')
    throw new ConfigError('EMAIL_TRANSPORT', `only smtp is supported, got "${transport}"`);
  const secure = bool(env, 'EMAIL_SMTP_SECURE', false);
  return {
    transport,
    smtp: {
      host: str(env, 'EMAIL_SMTP_HOST') ?? '127.0.0.1',
      port: int(env, 'EMAIL_SMTP_PORT', secure ? 465 : 587, 1, 65535),
      user: str(env, 'EMAIL_SMTP_USER'),
      password: str(env, 'EMAIL_SMTP_PASSWORD'),
      secure,
      ignoreTls: bool(env, 'EMAIL_SMTP_IGNORE_TLS', false),
      pool: bool(env, 'EMAIL_SMTP_POOL', false),
      name: str(env, 'EMAIL_SMTP_NAME'),
    },
    from: str(env, 'EMAIL_FROM') ?? 'no-reply@example.com',
    verifySetup: bool(env, 'EMAIL_VERIFY_SETUP', true),
    templatesPath: str(env, 'EMAIL_TEMPLATES_PATH'),
    queueMax: int(env, 'EMAIL_QUEUE_MAX', 1000, 1, 1_000_000),
    allowLists: {
      passwordReset: list(env, 'PASSWORD_RESET_URL_ALLOW_LIST'),
      userInvite: list(env, 'USER_INVITE_URL_ALLOW_LIST'),
      userRegister: list(env, 'USER_REGISTER_URL_ALLOW_LIST'),
    },
    registerStallMs: int(env, 'REGISTER_STALL_TIME', 750, 0, 60_000),
    passwordResetTtlMs: duration(env, 'PASSWORD_RESET_TOKEN_TTL', '1h'),
    inviteTtlMs: duration(env, 'USER_INVITE_TOKEN_TTL', '7d'),
    registerVerifyTtlMs: duration(env, 'USER_REGISTER_TOKEN_TTL', '1d'),
    passwordRequestLimit: bool(env, 'RATE_LIMITER_PASSWORD_REQUEST_ENABLED', true)
      ? seconds(env, 'RATE_LIMITER_PASSWORD_REQUEST', 5, 900)
      : null,
    registrationLimit: bool(env, 'RATE_LIMITER_REGISTRATION_ENABLED', true)
      ? seconds(env, 'RATE_LIMITER_REGISTRATION', 5, 60)
      : null,
  };
}
