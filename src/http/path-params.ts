/**
 * A NUL character in a path segment (`/items/a%00b`, `/fields/articles/a%00`, `/users/%00`) names nothing on any
 * database (PostgreSQL text cannot even hold it): every route refuses it alike, with INVALID_QUERY, before anything
 * reads the parameter, instead of each answering after its own fashion.
 */
import type { FastifyRequest } from 'fastify';
import { InvalidQueryError } from '../errors/catalogue.js';

/** Routes whose path has parameters (`:name` or a wildcard): only those can be handed a NUL. */
export function hasPathParams(url: string): boolean {
  return url.includes(':') || url.includes('*');
}

/** The refusal of a request whose path parameters hold NUL, or undefined. */
export function nulInPath(request: FastifyRequest): InvalidQueryError | undefined {
  const params = request.params as Record<string, unknown> | undefined;
  if (!params) return undefined;
  for (const name in params) {
    const value = params[name];
    if (typeof value === 'string' && value.includes('\u0000'))
      return new InvalidQueryError(`The path can't contain NUL characters ("${name === '*' ? 'path' : name}")`);
  }
  return undefined;
}
