/**
 * Where a sign-in may send the browser back to: a path on Strata itself, or a URL under an entry of the provider's
 * REDIRECT_ALLOW_LIST or PUBLIC_URL (same origin, and the entry's path as a prefix at a segment boundary). Anything
 * else — other hosts, `//host`, `/\host`, userinfo tricks, other schemes, control characters — is refused.
 */
const MAX_REDIRECT_LENGTH = 2048;

export function redirectAllowed(redirect: string, allowList: readonly string[]): boolean {
  if (redirect.length > MAX_REDIRECT_LENGTH || /[\u0000-\u001f\u007f\\]/.test(redirect)) return false;
  if (redirect.startsWith('/')) return !redirect.startsWith('//');
  let url: URL;
  try {
    url = new URL(redirect);
  } catch {
    return false;
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password) return false;
  return allowList.some((entry) => {
    const allowed = new URL(entry);
    if (allowed.origin !== url.origin) return false;
    const base = allowed.pathname.endsWith('/') ? allowed.pathname : `${allowed.pathname}/`;
    return url.pathname === allowed.pathname || url.pathname.startsWith(base) || allowed.pathname === '/';
  });
}
