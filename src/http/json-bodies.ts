/**
 * Bodies are JSON only: any other content type is 415 UNSUPPORTED_MEDIA_TYPE (Directus docs: API reference). Their
 * nesting is bounded before they are parsed, and a refused reserved key is named.
 */
import type { FastifyInstance } from 'fastify';
import { InvalidPayloadError } from '../errors/catalogue.js';
import { checkJsonText } from '../request/json-text.js';
import { jsonBodyKey, prototypeKeyReason, refusedKeyPath } from '../request/prototype-keys.js';

/**
 * Why a JSON body that Fastify's parser refused was refused, when it is well-formed JSON: its parser (secure-json-parse)
 * refuses `__proto__` keys and `constructor.prototype` as plain "Invalid JSON"; the client is told which key.
 */
function prototypeKeyError(body: string): InvalidPayloadError | null {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return null;
  }
  const path = refusedKeyPath(value, '', jsonBodyKey);
  return path === null ? null : new InvalidPayloadError(prototypeKeyReason(path));
}

export function registerJsonBodies(app: FastifyInstance, maxJsonDepth: number): void {
  app.removeContentTypeParser('text/plain');
  // An empty JSON body is no body (clients such as @directus/sdk send the JSON content type on every request,
  // DELETE /items/c/1 included); routes that need a body answer INVALID_PAYLOAD themselves.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') return done(null, undefined);
    try {
      checkJsonText(body as string, maxJsonDepth);
    } catch (error) {
      return done(error as Error, undefined);
    }
    parseJson(request, body as string, (error, value) =>
      done(error && (prototypeKeyError(body as string) ?? error), value),
    );
  });
}
