/**
 * Headers of the HTML pages Strata serves (/admin, /docs) and of their files: a Content-Security-Policy that lets a
 * page run only scripts from its own origin (no inline script, no eval) and be framed by no one, the same refusal for
 * browsers that only know X-Frame-Options, no content-type sniffing, and no Referer (/docs may carry a token in its
 * URL). Styles come from files too: Vue's style bindings and Swagger UI's (React's) style props set styles through the
 * DOM, which a policy does not restrict; the browser tests check that nothing is blocked. One exception: Studio's code
 * editor (CodeMirror) writes its styles into <style> elements, so the app's page gets a fresh nonce per response for
 * style elements only (scripts stay files); the browser tests check that nothing is blocked.
 */
import type { FastifyReply } from 'fastify';

const PAGE_CSP_PARTS = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
];
export const PAGE_CSP = PAGE_CSP_PARTS.join('; ');

/** For an HTML page; with `styleNonce`, <style> elements carrying that nonce are allowed too. */
export function pageHeaders(reply: FastifyReply, styleNonce?: string): FastifyReply {
  const policy = styleNonce
    ? PAGE_CSP_PARTS.map((part) => (part === "style-src 'self'" ? `${part} 'nonce-${styleNonce}'` : part)).join('; ')
    : PAGE_CSP;
  return reply
    .header('content-security-policy', policy)
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer');
}

/** For a script, style sheet or image a page loads: typed as sent, never sniffed. */
export function assetHeaders(reply: FastifyReply): FastifyReply {
  return reply.header('x-content-type-options', 'nosniff');
}
