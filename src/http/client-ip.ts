import type { FastifyRequest } from 'fastify';

/**
 * The client's IP: a configured custom header (set by a trusted proxy) wins; otherwise Fastify's `request.ip`,
 * which follows X-Forwarded-For only when IP_TRUST_PROXY is on.
 */
export function clientIp(request: FastifyRequest, customHeader: string | null): string {
  if (customHeader) {
    const value = request.headers[customHeader];
    const first = (Array.isArray(value) ? value[0] : value)?.split(',')[0]?.trim();
    if (first) return first;
  }
  return request.ip;
}
