/**
 * Reads answered from the response cache (docs/design/response-cache.md), for REST's item reads and GraphQL queries
 * alike: the key from what decides the answer, a hit sent as it was kept, a miss run and kept with the collections
 * its reads reached (reported on the request's stage timer by the read engine). `Cache-Control` as Directus sends it;
 * CACHE_STATUS_HEADER (when set) says HIT or MISS.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ResponseCache } from '../cache/response-cache.js';
import type { ResponseCacheConfig } from '../config/cache-config.js';
import { timerOf } from './request-hooks.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/** A query string with its parameters in one order: `?a=1&b=2` and `?b=2&a=1` share an entry. */
export function normalQueryString(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return '';
  const params = new URLSearchParams(url.slice(at + 1));
  params.sort();
  return params.toString();
}

function controlHeader(request: FastifyRequest, config: ResponseCacheConfig): string {
  if (config.autoPurge) return 'no-cache';
  const parts = [request.accountability?.user ? 'private' : 'public', `max-age=${Math.round(config.ttlMs / 1000)}`];
  if (config.sMaxAge !== null) parts.push(`s-maxage=${config.sMaxAge}`);
  return parts.join(', ');
}

function status(reply: FastifyReply, config: ResponseCacheConfig, value: 'HIT' | 'MISS'): FastifyReply {
  return config.statusHeader ? reply.header(config.statusHeader, value) : reply;
}

/** A kept answer sent as it was kept (also from the early hit, early-hit.ts). */
export function hitReply(
  request: FastifyRequest,
  reply: FastifyReply,
  config: ResponseCacheConfig,
  body: string | Buffer,
): FastifyReply {
  return status(reply, config, 'HIT')
    .header('cache-control', controlHeader(request, config))
    .type(JSON_TYPE)
    .send(body);
}

/**
 * Answers a read through the cache. `material` is what, beside the caller and the schema, decides the answer
 * (method, path, normalised query or GraphQL document); `run` produces the JSON body.
 */
export async function cachedRead(
  cache: ResponseCache,
  config: ResponseCacheConfig,
  request: FastifyRequest,
  reply: FastifyReply,
  material: string,
  run: () => Promise<string>,
): Promise<FastifyReply> {
  if (config.skipAllowed && String(request.headers['cache-control'] ?? '').includes('no-store')) {
    const body = await run();
    return reply.header('cache-control', 'no-store').type(JSON_TYPE).send(body);
  }
  const key = await cache.keyOf(material, request.accountability);
  const found = key === null ? null : await cache.lookup(key);
  if (found?.body !== undefined) return hitReply(request, reply, config, found.body);
  const sequence = found?.sequence ?? null;
  const flight = key !== null && sequence !== null ? cache.flight(key, sequence) : null;
  if (flight && 'joined' in flight) {
    const shared = await flight.joined;
    if (shared !== null) return hitReply(request, reply, config, shared);
  }
  let body: string;
  try {
    body = await run();
  } catch (error) {
    if (flight && 'done' in flight) flight.done(null);
    throw error;
  }
  const timer = timerOf(request);
  const keep =
    key !== null &&
    sequence !== null &&
    timer.reach !== null &&
    !timer.untagged &&
    body.length <= config.valueMaxSize &&
    !reply.hasHeader('set-cookie');
  if (keep) cache.keep(key, body, [...timer.reach!], sequence);
  if (flight && 'done' in flight) flight.done(keep ? body : null);
  return status(reply, config, 'MISS')
    .header('cache-control', keep ? controlHeader(request, config) : 'no-cache')
    .type(JSON_TYPE)
    .send(body);
}
