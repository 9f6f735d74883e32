/**
 * Signed outgoing requests: `X-Strata-Timestamp` (unix seconds) and `X-Strata-Signature: sha256=<hex>`, the HMAC-SHA256
 * of `<timestamp>.<body>` with the secret. A receiver recomputes it and refuses old timestamps (replays).
 */
import { createHmac } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-strata-signature';
export const TIMESTAMP_HEADER = 'x-strata-timestamp';

export function signature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export function signedHeaders(secret: string, body: string, now = Date.now()): Record<string, string> {
  const timestamp = String(Math.floor(now / 1000));
  return { [TIMESTAMP_HEADER]: timestamp, [SIGNATURE_HEADER]: signature(secret, timestamp, body) };
}
