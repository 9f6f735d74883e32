/** TOTP two-factor secrets and codes (Directus docs: Authentication), with otpauth. */
import { Secret, TOTP } from 'otpauth';

export function newTfaSecret(email: string, issuer: string): { secret: string; otpauth_url: string } {
  const secret = new Secret({ size: 20 });
  const totp = new TOTP({ issuer, label: email, secret });
  return { secret: secret.base32, otpauth_url: totp.toString() };
}

/** One step of clock drift either way is accepted. */
export function otpValid(secret: string, otp: unknown, now: number = Date.now()): boolean {
  if (typeof otp !== 'string' || !/^\d{6}$/.test(otp)) return false;
  try {
    return new TOTP({ secret: Secret.fromBase32(secret) }).validate({ token: otp, window: 1, timestamp: now }) !== null;
  } catch {
    return false;
  }
}
