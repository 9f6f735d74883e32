/**
 * The links mailed by the account flows. A caller may name where a link points (`reset_url`, `invite_url`,
 * `verification_url`) only when that address is on the flow's allow-list: same scheme, host, port and path, no
 * user info; the caller's query string and fragment are dropped, so a link carries nothing but our token. Without a
 * caller's address the link goes to PUBLIC_URL, never to the request's Host header (which the caller writes).
 */
import { InvalidPayloadError } from '../errors/catalogue.js';

function canonical(raw: string): string | null {
  try {
    const url = new URL(raw);
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) return null;
    return `${url.origin}${url.pathname}`;
  } catch {
    return null;
  }
}

/**
 * The base of the link (without its token): the caller's URL when allowed, else PUBLIC_URL + `fallbackPath`.
 * INVALID_PAYLOAD for a URL off the list, and when no absolute address can be made.
 */
export function linkBase(
  given: string | undefined,
  allowList: readonly string[],
  field: string,
  publicUrl: string,
  fallbackPath: string,
): string {
  if (given !== undefined) {
    const url = canonical(given);
    if (url === null || !allowList.some((allowed) => canonical(allowed) === url))
      throw new InvalidPayloadError(`"${field}" can't be used here`);
    return url;
  }
  if (publicUrl === '/') throw new InvalidPayloadError(`"${field}" is required while PUBLIC_URL is not set`);
  return `${publicUrl}${fallbackPath}`;
}

export function withToken(base: string, token: string): string {
  return `${base}?token=${encodeURIComponent(token)}`;
}
